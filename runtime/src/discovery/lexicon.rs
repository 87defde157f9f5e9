//! The search's word lists: what users say for what API descriptions say. Kept apart from the
//! ranking (`search.rs`) so that they can be read and extended as data.

/// The words a user says for what a method does (the method itself is no evidence of intent
/// beyond these).
pub(crate) fn verbs(method: &str) -> &'static str {
    match method.to_ascii_uppercase().as_str() {
        "GET" | "HEAD" => "get list show read fetch retrieve find view look see check",
        "POST" => "create add new make send post submit start run trigger",
        "PUT" => "update replace set put edit change",
        "PATCH" => "update edit change modify patch set rename",
        "DELETE" => "delete remove destroy cancel revoke unset drop",
        _ => "",
    }
}

/// Words that users and API descriptions use for the same thing. A query word also looks for the
/// other words of its groups, at the search's synonym weight.
pub(crate) const SYNONYMS: &[&[&str]] = &[
    &["delete", "remove", "destroy", "erase", "purge", "discard"],
    &["create", "add", "new", "make", "open"],
    &["update", "edit", "modify", "change", "fix", "rename"],
    &["get", "fetch", "retrieve", "show", "view", "read", "display"],
    &["list", "all", "enumerate", "browse"],
    &["cancel", "stop", "abort", "terminate", "halt", "void"],
    &["copy", "fork", "clone", "duplicate"],
    &["assign", "assignee", "owner", "owns", "responsible"],
    &["review", "reviewer", "approve", "approval"],
    &["comment", "reply", "respond", "note"],
    &["notification", "inbox", "alerts", "unread"],
    &["release", "version", "shipped", "published"],
    &["compare", "diff", "difference"],
    &["collaborator", "access", "permission", "invite"],
    &["vulnerability", "vulnerable", "advisory", "security", "cve"],
    &["limit", "quota", "remaining", "rate", "throttle", "throttled"],
    &["star", "stargazer", "starred", "favorite"],
    &["message", "chat", "post", "send", "say", "tell"],
    &["leave", "quit", "exit", "depart"],
    &["presence", "online", "offline", "away", "active"],
    &["status", "profile", "emoji"],
    &["upload", "attach", "file", "document", "pdf"],
    &["reaction", "react", "emoji"],
    &["snooze", "mute", "dnd", "disturb", "quiet", "pause"],
    &["search", "find", "look", "query"],
    &["refund", "reimburse", "money back", "return"],
    &["subscription", "plan", "billing", "recurring", "subscribe"],
    &["product", "catalog", "item", "goods"],
    &["price", "cost", "pricing", "amount", "charge"],
    &["payout", "withdrawal", "withdraw", "bank"],
    &["balance", "funds", "available", "money"],
    &["dispute", "chargeback", "contest"],
    &["transfer", "send", "pay", "move"],
    &["member", "user", "people", "person", "profile"],
    &["team", "group", "usergroup", "handle"],
    &["organization", "org", "company"],
    &["repository", "repo", "project"],
    &["issue", "bug", "ticket"],
    &["pull", "pr", "merge"],
    &["secret", "credential", "token"],
    &["workflow", "pipeline", "ci", "build", "deploy"],
    &["run", "execution", "job"],
    &["webhook", "hook", "callback", "endpoint"],
    &["lock", "freeze"],
    &["follow", "watch", "subscribe"],
    &["schedule", "scheduled", "later", "remind", "reminder"],
    &["channel", "conversation", "room"],
    &["history", "messages", "recent", "last"],
    &["kick", "remove"],
    &["archive", "close"],
    &["label", "tag"],
    &["link", "permalink", "url"],
    &["card", "payment method", "source"],
    &["capture", "collect", "authorized"],
    &["invoice", "bill"],
    &["contents", "file", "content"],
    &["commit", "change", "changed"],
    &["upcoming", "next", "future", "coming"],
    &["detach", "unlink", "disconnect"],
];

/// Short forms and what they stand for: the same word to a user, at full weight.
pub(crate) const ABBREVIATIONS: &[(&str, &str)] = &[
    ("pr", "pull request"),
    ("repo", "repository"),
    ("org", "organization"),
    ("dm", "direct message"),
    ("info", "information"),
    ("config", "configuration"),
    ("env", "environment"),
    ("auth", "authentication"),
    ("app", "application"),
    ("msg", "message"),
    ("admin", "administrator"),
];

/// Multi-word expressions of requests, and the word an API uses for them.
pub(crate) const PHRASES: &[(&str, &str)] = &[
    ("get rid of", "delete"),
    ("take down", "delete"),
    ("call off", "cancel"),
    ("kick off", "start"),
    ("look up", "find"),
    ("look over", "review"),
    ("turn on", "enable"),
    ("turn off", "disable"),
    ("switch on", "enable"),
    ("switch off", "disable"),
    ("set up", "create"),
    ("sign up", "register"),
    ("money back", "refund"),
    ("hand over", "transfer"),
    ("thumbs up", "react"),
    ("get out of", "leave"),
    // Question words that ask for a kind of thing.
    ("who", "user member"),
    ("who's", "user member"),
    ("whom", "user member"),
    ("how many", "count"),
    // "The card on file" is a stored one, not a file.
    ("on file", "saved"),
    ("one-on-one", "direct"),
];

/// Query verbs that say which kind of method answers: (verbs, methods).
pub(crate) const INTENTS: &[(&[&str], &[&str])] = &[
    (
        &["delete", "remove", "destroy", "erase", "purge", "drop", "rid", "revoke", "unstar", "unfollow", "kick"],
        &["DELETE"],
    ),
    (
        &[
            "create", "add", "new", "make", "open", "file", "post", "send", "start", "submit", "invite", "upload",
            "register", "give", "grant", "save", "store",
        ],
        &["POST", "PUT"],
    ),
    (&["update", "change", "edit", "modify", "rename", "set", "fix", "replace"], &["PATCH", "PUT", "POST"]),
    (
        &[
            "list", "show", "get", "what", "which", "who", "find", "view", "read", "see", "fetch", "look", "many",
            "check", "display",
        ],
        &["GET", "HEAD"],
    ),
];

/// Irregular verb forms and their base, which a user's past tense ("I paid", "who sent") and a
/// description's ("paid invoices") share. "Left" is not here: it is as often what remains ("how
/// many calls have I left") as the past of leaving; nor are "saw" and "seen" ("I've seen it all"
/// asks to mark as read).
pub(crate) const IRREGULAR: &[(&str, &str)] = &[
    ("paid", "pay"),
    ("sent", "send"),
    ("made", "make"),
    ("gave", "give"),
    ("given", "give"),
    ("took", "take"),
    ("taken", "take"),
    ("wrote", "write"),
    ("written", "write"),
    ("ran", "run"),
    ("bought", "buy"),
    ("sold", "sell"),
    ("built", "build"),
    ("broke", "break"),
    ("broken", "break"),
    ("chose", "choose"),
    ("chosen", "choose"),
    ("found", "find"),
    ("froze", "freeze"),
    ("frozen", "freeze"),
    ("hid", "hide"),
    ("hidden", "hide"),
    ("kept", "keep"),
    ("lost", "lose"),
    ("said", "say"),
    ("spent", "spend"),
    ("told", "tell"),
    ("undid", "undo"),
    ("undone", "undo"),
    ("won", "win"),
    ("began", "begin"),
    ("begun", "begin"),
    ("forgot", "forget"),
    ("forgotten", "forget"),
];

/// Words that carry no meaning in a search: function words, and the fillers of requests ("I want
/// details about ...", "can you just ...").
pub(crate) const STOP_WORDS: &[&str] = &[
    "a", "an", "the", "of", "for", "to", "in", "on", "my", "me", "i", "and", "or", "with", "by", "from", "at", "as",
    "is", "are", "be", "it", "its", "this", "that", "these", "those", "into", "can", "you", "your", "we", "our",
    "please", "what", "which", "who", "how", "do", "does", "all", "some", "any", "there", "their", "them", "will",
    "would", "was", "were", "been", "being", "did", "has", "have", "had", "could", "should", "may", "might", "must",
    "shall", "he", "she", "his", "her", "him", "they", "us", "if", "then", "than", "so", "but", "just", "also", "too",
    "really", "right", "now", "want", "need", "like", "let", "about", "details", "detail", "else", "still", "already",
    "whose", "where", "when",
];
