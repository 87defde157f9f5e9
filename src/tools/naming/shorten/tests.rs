use std::collections::BTreeSet;

use super::{Context, Frequency, drop_words, join, stem, tokens};

fn shortened(name: &str, max: usize, tag: Option<&str>) -> String {
    drop_words(name, max, &Context { tag, frequency: None }, &BTreeSet::new())
}

#[test]
fn tokens_keep_their_separators_and_rejoin_as_they_were() {
    for name in ["orgs_custom-properties-for-repos", "getPetById", "users_user_calendarGroups", "_1st_thing", "a"] {
        let t = tokens(name);
        assert_eq!(join(&t, &vec![true; t.len()]), name);
    }
    let words: Vec<(&str, &str)> = tokens("orgs_custom-propertiesFor").iter().map(|t| (t.sep, t.word)).collect();
    assert_eq!(words, [("", "orgs"), ("_", "custom"), ("-", "properties"), ("", "For")]);
}

#[test]
fn a_dropped_word_leaves_the_first_separator_of_its_gap() {
    let t = tokens("orgs_custom-properties-for-repos");
    assert_eq!(join(&t, &[true, false, true, true, true]), "orgs_properties-for-repos");
    assert_eq!(join(&t, &[true, true, true, false, true]), "orgs_custom-properties-repos");
    let t = tokens("fooBar-baz");
    assert_eq!(join(&t, &[true, false, true]), "foo-baz", "a hump dropped before a `-` keeps the `-`");
    let t = tokens("getAllPackages");
    assert_eq!(join(&t, &[true, false, true]), "getPackages");
}

#[test]
fn words_compare_singular_and_in_lower_case() {
    assert_eq!(stem("Repositories"), "repository");
    assert_eq!(stem("packages"), "package");
    assert_eq!(stem("access"), "access");
    assert_eq!(stem("ids"), "ids");
}

#[test]
fn github_names_lose_repeated_small_and_group_words_and_keep_their_dashes() {
    let cases = [
        (
            "packages_get-all-package-versions-for-package-owned-by-authenticated-user",
            "packages_get-all-versions-for-owned-by-authenticated-user",
        ),
        (
            "orgs_custom-properties-for-repos-create-or-update-organization-definitions",
            "orgs_custom-properties-for-repos-create-or-update-definitions",
        ),
        (
            "orgs_custom-properties-for-repos-create-or-update-organization-definition",
            "orgs_custom-properties-for-repos-create-or-update-definition",
        ),
        (
            "actions_list-selected-repositories-enabled-github-actions-organization",
            "actions_list-selected-repositories-enabled-github-organization",
        ),
        (
            "packages_list-docker-migration-conflicting-packages-for-authenticated-user",
            "packages_list-docker-migration-conflicting-authenticated-user",
        ),
    ];
    for (long, short) in cases {
        let tag = long.split('_').next();
        assert_eq!(shortened(long, 64, tag), short, "{long}");
    }
}

#[test]
fn graph_names_lose_the_parameters_after_their_collections_first() {
    assert_eq!(
        shortened("users_user_calendarGroups_calendarGroup_calendars_calendar_events_event_accept", 64, None),
        "users_user_calendarGroups_calendarGroup_calendars_events_accept"
    );
    assert_eq!(
        shortened(
            "deviceManagement_deviceHealthScripts_deviceHealthScript_getGlobalScriptHighestAvailableVersion",
            64,
            None
        ),
        "deviceManagement_HealthScripts_getGlobalHighestAvailableVersion"
    );
}

#[test]
fn the_first_and_last_words_stay_and_kept_words_are_never_dropped() {
    let ctx = Context { tag: None, frequency: None };
    let name = "alpha_beta_gamma_delta_epsilon";
    assert_eq!(drop_words(name, 20, &ctx, &BTreeSet::new()), "alpha_delta_epsilon");
    let keep = BTreeSet::from([2]);
    assert_eq!(drop_words(name, 20, &ctx, &keep), "alpha_gamma_epsilon");
    // What cannot be reached by whole words comes back as short as it got.
    assert_eq!(drop_words(name, 8, &ctx, &BTreeSet::new()), "alpha_epsilon");
}

#[test]
fn the_words_the_api_shares_most_go_first_and_the_last_drop_loses_least() {
    let names = ["actions_fork", "actions_fork-pr", "actions_fork-approval", "actions_get-fork", "actions_pr"];
    let frequency = Frequency::of(names);
    let ctx = Context { tag: Some("actions"), frequency: Some(&frequency) };
    let name = "actions_get-fork-pr-contributor-approval-permissions-organization";
    // One character too many: the shortest word goes.
    assert_eq!(
        drop_words(name, 64, &ctx, &BTreeSet::new()),
        "actions_get-fork-contributor-approval-permissions-organization"
    );
    // Twenty: `fork` (in 5 names), then `pr` (in 2), then the first of the longest.
    assert_eq!(drop_words(name, 45, &ctx, &BTreeSet::new()), "actions_get-approval-permissions-organization");
}
