use serde_json::json;

use super::*;

fn doc<'a>(
    name: &'a str,
    desc: &'a str,
    method: &'a str,
    path: &'a str,
    schema: &'a Map<String, Value>,
) -> SearchDoc<'a> {
    SearchDoc {
        name,
        operation_id: None,
        title: None,
        description: desc,
        method: Some(method),
        path: Some(path),
        tags: &[],
        input_schema: std::borrow::Cow::Borrowed(schema),
        response_shape: None,
    }
}

fn index(schema: &Map<String, Value>) -> SearchIndex {
    SearchIndex::build([
        doc("listPets", "List all pets in the store.", "GET", "/pets", schema),
        doc("createPet", "Add a new pet to the store.", "POST", "/pets", schema),
        doc("deletePet", "Deletes a pet.", "DELETE", "/pets/{petId}", schema),
        doc("getOrder", "Find a purchase order by ID.", "GET", "/store/order/{orderId}", schema),
    ])
}

#[test]
fn ranks_by_meaning() {
    let schema = Map::new();
    let idx = index(&schema);
    assert_eq!(idx.search("remove a pet", 2)[0].0, 2, "remove is what DELETE does");
    assert_eq!(idx.search("purchase orders", 2)[0].0, 3);
    assert_eq!(idx.search("add pets", 1)[0].0, 1);
}

#[test]
fn exact_names_come_first() {
    let schema = Map::new();
    let idx = index(&schema);
    let hits = idx.search("getorder", 3);
    assert_eq!(hits[0], (3, f32::INFINITY));
}

#[test]
fn no_match_is_empty_and_ties_keep_catalogue_order() {
    let schema = Map::new();
    let idx = index(&schema);
    assert!(idx.search("zebra quantum", 5).is_empty());
    let hits = idx.search("store", 4);
    assert!(hits.len() >= 2);
    let again = idx.search("store", 4);
    assert_eq!(hits, again);
}

#[test]
fn parameters_are_searchable() {
    let with = json!({"properties": {"customerEmail": {"type": "string", "description": "Billing address. Ignored."}}});
    let with = with.as_object().unwrap();
    let none = Map::new();
    let idx = SearchIndex::build([
        doc("a", "Something.", "GET", "/a", &none),
        doc("b", "Something else.", "GET", "/b", with),
    ]);
    assert_eq!(idx.search("billing email", 1)[0].0, 1);
}

#[test]
fn short_enumerations_are_searchable_long_ones_are_not() {
    let review = json!({"properties": {"event": {"type": "string", "enum": ["APPROVE", "COMMENT"]}}});
    let codes =
        json!({"properties": {"country": {"type": "string", "enum": ["AD", "AE", "AF", "AG", "AI", "AL", "AM"]}}});
    let none = Map::new();
    let idx = SearchIndex::build([
        doc("a", "Something.", "POST", "/a", &none),
        doc("b", "Something else.", "POST", "/b", review.as_object().unwrap()),
        doc("c", "Another thing.", "POST", "/c", codes.as_object().unwrap()),
    ]);
    assert_eq!(idx.search("approve", 1)[0].0, 1);
    assert!(idx.search("AE", 3).is_empty(), "a list of codes is not a choice a user names");
}

#[test]
fn meaning_ranks_what_the_words_miss() {
    let schema = Map::new();
    let idx = index(&schema);
    // "purchase orders" finds only getOrder by its words; a meaning close to deletePet lifts it
    // above, and a hit by words alone keeps its place among the rest.
    let cosines = [0.0, 0.0, 0.9, 0.1];
    let hits = idx.search_with("purchase orders", 4, Some(&cosines));
    assert_eq!(hits.iter().map(|h| h.0).collect::<Vec<_>>(), [2, 3, 0, 1]);
    // Vectors for another catalogue are not used.
    assert_eq!(idx.search_with("purchase orders", 1, Some(&[1.0])), idx.search("purchase orders", 1));
}

#[test]
fn when_no_word_matches_only_close_meanings_are_hits() {
    let schema = Map::new();
    let idx = index(&schema);
    let hits = idx.search_with("zebra quantum", 5, Some(&[0.1, 0.3, 0.24, 0.5]));
    assert_eq!(hits.iter().map(|h| h.0).collect::<Vec<_>>(), [3, 1]);
    assert!(idx.search_with("zebra quantum", 5, Some(&[0.1, 0.2, 0.0, -0.3])).is_empty());
}

#[test]
fn a_summary_said_in_full_beats_more_mentions_elsewhere() {
    let none = Map::new();
    let idx = SearchIndex::build([
        SearchDoc {
            title: Some("Check if a pull request has been merged"),
            ..doc(
                "pulls_check",
                "Checks if a pull request has been merged. The pull request's state.",
                "GET",
                "/repos/{o}/{r}/pulls/{n}/merge",
                &none,
            )
        },
        SearchDoc {
            title: Some("List pull requests associated with a commit"),
            ..doc(
                "commit_pulls",
                "Lists the pull requests of a commit.",
                "GET",
                "/repos/{o}/{r}/commits/{sha}/pulls",
                &none,
            )
        },
        SearchDoc {
            title: Some("List pull requests"),
            ..doc(
                "pulls_list",
                "Lists pull requests in a repository. Drafts are available in public repositories with many plans and in private ones with others.",
                "GET",
                "/repos/{o}/{r}/pulls",
                &none,
            )
        },
    ]);
    assert_eq!(idx.search("list open pull requests", 3)[0].0, 2);
}

#[test]
fn a_request_that_matches_no_word_still_finds_the_closest() {
    let schema = Map::new();
    let idx = index(&schema);
    assert!(idx.search("purchse ordr", 3).is_empty());
    assert_eq!(idx.closest("purchse ordre", 3)[0].0, 3, "respelled");
    assert_eq!(idx.closest("getordr", 3)[0].0, 3, "by the letters of its name");
}

#[test]
fn exact_names_come_first_with_meaning_too() {
    let schema = Map::new();
    let idx = index(&schema);
    let hits = idx.search_with("getorder", 2, Some(&[0.9, 0.9, 0.9, 0.0]));
    assert_eq!(hits[0], (3, f32::INFINITY));
}

#[test]
fn response_member_names_find_what_no_tool_text_says() {
    let none = Map::new();
    let idx = SearchIndex::build([
        doc("getMovie", "Get a movie's details.", "GET", "/movie/{id}", &none),
        SearchDoc {
            response_shape: Some("{id, poster_path, backdrop_path}"),
            ..doc("movieImages", "Get the images of a movie.", "GET", "/movie/{id}/images", &none)
        },
        doc("searchMovies", "Search for movies by title.", "GET", "/search/movie", &none),
    ]);
    let hits = idx.search("a poster", 3);
    assert_eq!(hits.iter().map(|h| h.0).collect::<Vec<_>>(), [1], "only the tool whose results have it");
    let hits: Vec<usize> = idx.search("the poster of a movie", 3).iter().map(|h| h.0).collect();
    assert!(hits.iter().position(|&d| d == 1) < hits.iter().position(|&d| d == 2), "{hits:?}");
    assert_eq!(idx.search("search movies", 3)[0].0, 2, "words the tools' own text has are not moved");
}

/// A request to list ranks reads above writes that share its words, and a write whose summary
/// says it reads (a `POST` search) is not held back.
#[test]
fn a_request_to_read_ranks_reads_above_writes() {
    let schema = Map::new();
    let idx = SearchIndex::build([
        doc(
            "rerunFailedJobs",
            "Re-run failed jobs from a workflow run. Re-run all of the failed jobs of a workflow run.",
            "POST",
            "/repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs",
            &schema,
        ),
        doc(
            "listWorkflowRuns",
            "List workflow runs for a repository.",
            "GET",
            "/repos/{owner}/{repo}/actions/runs",
            &schema,
        ),
        doc("searchRuns", "Lists failed workflow runs matching a query.", "POST", "/search/runs", &schema),
    ]);
    let hits = idx.search("list the failed workflow runs of a repository", 3);
    let order: Vec<usize> = hits.iter().map(|(i, _)| *i).collect();
    assert_eq!(order, [1, 2, 0], "the reads first, the POST that reads too: {hits:?}");
    assert_eq!(idx.search("re-run the failed jobs", 1)[0].0, 0, "a request to write still finds the write");
}

/// Documents read in runs on several threads make the index one pass makes, term ids and all.
#[test]
fn an_index_read_in_runs_is_the_index_read_at_once() {
    let words = ["list", "pets", "Orders", "userGroups", "delete", "Paid", "invoices", "calendarEvents", "mail", "x"];
    let schemas: Vec<Map<String, Value>> = (0..7)
        .map(
            |i| match json!({"properties": {words[i]: {"description": words[(i + 3) % 10], "enum": [words[i + 1]]}}}) {
                Value::Object(m) => m,
                _ => Map::new(),
            },
        )
        .collect();
    let texts: Vec<(String, String, String)> = (0..500)
        .map(|i| {
            let w = |k: usize| words[(i * k + k) % words.len()];
            (
                format!("{}{}{i}", w(1), w(3)),
                format!("{} the {} of {}", w(2), w(5), w(7)),
                format!("/{}/{}/{{id}}/{}", w(1), w(4), w(9)),
            )
        })
        .collect();
    let make = |i: usize| {
        let (name, description, path) = &texts[i];
        let method = ["GET", "POST", "DELETE", "PATCH"][i % 4];
        SearchDoc { response_shape: Some(words[i % 10]), ..doc(name, description, method, path, &schemas[i % 7]) }
    };
    let whole = SearchIndex::build((0..texts.len()).map(make));
    for threads in [2, 3, 7] {
        let runs = SearchIndex::build_in_runs(texts.len(), make, threads);
        assert_eq!(runs.terms, whole.terms, "{threads} threads");
        assert_eq!(runs.postings, whole.postings);
        assert_eq!(runs.idf, whole.idf);
        assert_eq!(runs.exact, whole.exact);
        assert_eq!(runs.response_words, whole.response_words);
        assert_eq!(runs.spellings, whole.spellings);
        assert_eq!(format!("{:?}", runs.profiles), format!("{:?}", whole.profiles));
        assert_eq!(runs.resources.named_by("pe"), whole.resources.named_by("pe"));
        assert_eq!(runs.docs, whole.docs);
        for query in ["delete the pets", "paid invoices", "user groups mail"] {
            assert_eq!(runs.search(query, 5), whole.search(query, 5), "{query}");
        }
    }
}
