//! Text from API descriptions made fit for a model: plain words on one line (no HTML, no
//! Markdown, no control characters), first paragraphs and sentences, cuts at a length. An API
//! description is untrusted input: what comes out of [`plain`] cannot pass for the structure of
//! the text it is put into (a heading, a list item, a line of its own, a tag).
//! Also the words of identifiers ([`split_words`]) and numbers and sizes for people.

/// Abbreviations whose period does not end a sentence.
const ABBREVIATIONS: [&str; 10] = ["e.g", "i.e", "etc", "vs", "approx", "incl", "no", "eg", "ie", "cf"];

/// The first sentence of a text (up to `.`, `!` or `?` before white space, or a blank line), on one
/// line, at most `max` characters (cut with `…`).
pub fn first_sentence(text: &str, max: usize) -> String {
    let text = text.trim();
    let mut end = text.len();
    let bytes = text.as_bytes();
    for (i, c) in text.char_indices() {
        if c == '\n' && bytes.get(i + 1) == Some(&b'\n') {
            end = i;
            break;
        }
        if matches!(c, '.' | '!' | '?') && bytes.get(i + 1).is_none_or(u8::is_ascii_whitespace) {
            let word = text[..i].rsplit(|ch: char| ch.is_whitespace() || ch == '(').next().unwrap_or("");
            if c == '.' && ABBREVIATIONS.contains(&word.to_ascii_lowercase().as_str()) {
                continue;
            }
            end = i + 1;
            break;
        }
    }
    cap(&text[..end].split_whitespace().collect::<Vec<_>>().join(" "), max)
}

/// Cuts text to at most `max` characters at a word boundary, marking the cut with `…`.
pub fn cap_words(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let end = text.char_indices().nth(max.saturating_sub(1)).map_or(text.len(), |(i, _)| i);
    let (head, next) = (&text[..end], &text[end..]);
    let inside_word = !next.starts_with(char::is_whitespace) && !head.ends_with(char::is_whitespace);
    let head = match head.rfind(' ') {
        // Back to the word's start, unless that loses most of the text.
        Some(space) if inside_word && space > max / 2 => &head[..space],
        _ => head,
    };
    format!("{}…", head.trim_end().trim_end_matches([',', ';', ':']))
}

/// Cuts text to at most `max` characters, marking the cut with `…`.
pub fn cap(text: &str, max: usize) -> String {
    let text = text.trim();
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.truncate(out.trim_end().len());
    out.push('…');
    out
}

/// The first paragraph of `text` (blocks are separated by blank lines) that says something in
/// plain words: headings, fenced code and blocks with no words after [`plain`] are passed over
/// (`# Introduction`, then the paragraph that introduces). Empty when no paragraph does.
pub fn first_paragraph(text: &str) -> String {
    paragraphs(text)
        .into_iter()
        .filter(|p| !p.lines().all(|l| l.trim().is_empty() || l.trim_start().starts_with('#')))
        .map(|p| plain(&p))
        .find(|p| p.chars().any(char::is_alphanumeric))
        .unwrap_or_default()
}

/// The blocks of `text` between blank lines, fenced code blocks left out.
fn paragraphs(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut fenced = false;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        if trimmed.is_empty() {
            if !current.trim().is_empty() {
                out.push(std::mem::take(&mut current));
            }
            current.clear();
            continue;
        }
        current.push_str(line);
        current.push('\n');
    }
    if !current.trim().is_empty() {
        out.push(current);
    }
    out
}

/// `text` as plain words on one line: HTML comments and tags go (a tag leaves a space), the
/// common entities are decoded; Markdown's line markers (headings, quotes, list items, GitHub's
/// `[!NOTE]`), emphasis, backticks and fences go, links and images leave their text; control
/// characters (line and paragraph separators included) become spaces, and runs of white space
/// one space.
pub fn plain(text: &str) -> String {
    let text = without_html(text);
    let mut words = String::with_capacity(text.len());
    for line in text.lines() {
        let line = without_line_marker(line.trim());
        if line.starts_with("```") || line.starts_with("~~~") || is_table_rule(line) {
            continue;
        }
        words.push_str(&inline_text(line));
        words.push(' ');
    }
    let spaced: String =
        words.chars().map(|c| if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') { ' ' } else { c }).collect();
    // A tag's space before a period or comma (`<b>Pets</b>.`) is not the text's; a word that
    // starts with one (`.git`, `.NET`) keeps its space.
    let mut out = String::with_capacity(spaced.len());
    for word in spaced.split_whitespace() {
        let mut rest = word.chars();
        let punctuation = matches!(rest.next(), Some('.' | ','));
        let attached = punctuation && !rest.next().is_some_and(char::is_alphanumeric);
        if !out.is_empty() && !attached {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// `text` without HTML comments and tags (each replaced by a space), the common entities decoded.
/// A `<` that does not open a tag (`a < b`) is text.
fn without_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        if let Some(comment) = after.strip_prefix("!--") {
            rest = comment.find("-->").map_or("", |end| &comment[end + 3..]);
            out.push(' ');
            continue;
        }
        let opens_tag = after.starts_with(|c: char| c.is_ascii_alphabetic() || matches!(c, '/' | '!' | '?'));
        match after.find('>').filter(|_| opens_tag) {
            Some(close) => {
                out.push(' ');
                rest = &after[close + 1..];
            }
            None => {
                out.push('<');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    if !out.contains('&') {
        return out;
    }
    let entities = [("&nbsp;", " "), ("&quot;", "\""), ("&#39;", "'"), ("&apos;", "'"), ("&lt;", "<"), ("&gt;", ">")];
    // `&amp;` last, so that `&amp;lt;` reads `&lt;`.
    let decoded = entities.iter().fold(out, |s, (entity, c)| s.replace(entity, c));
    decoded.replace("&amp;", "&")
}

/// A line without the Markdown marker it starts with: `#`s, `>`s, a list item's `-`, `*`, `+`
/// or `1.`, and a GitHub alert's `[!NOTE]`.
fn without_line_marker(line: &str) -> &str {
    let mut line = line;
    loop {
        let before = line;
        line = line.trim_start_matches(['#', '>']).trim_start();
        for marker in ["- ", "* ", "+ "] {
            if let Some(rest) = line.strip_prefix(marker) {
                line = rest.trim_start();
            }
        }
        let digits = line.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && line[digits..].starts_with(". ") {
            line = line[digits + 2..].trim_start();
        }
        if line.starts_with("[!")
            && let Some(end) = line.find(']')
        {
            line = line[end + 1..].trim_start();
        }
        if line == before {
            return line;
        }
    }
}

/// A Markdown table's rule (`|---|:--:|`).
fn is_table_rule(line: &str) -> bool {
    line.contains('-') && line.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '))
}

/// A line's inline Markdown as text: links and images as their text, no emphasis markers or
/// backticks (`snake_case` names keep their underscores).
fn inline_text(line: &str) -> String {
    let out = link_labels(line).replace("**", "").replace("__", "").replace('`', "");
    without_star_emphasis(&out)
}

/// Markdown links and images as their text (`[Link header](https://…)` -> `Link header`).
pub fn link_labels(text: &str) -> String {
    if !text.contains("](") {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let link = rest[open..].find("](").and_then(|mid| {
            let label = &rest[open + 1..open + mid];
            let after = &rest[open + mid + 2..];
            let close = after.find(')')?;
            (!label.contains(['[', ']', '\n'])).then_some((label, open + mid + 2 + close + 1))
        });
        match link {
            Some((label, end)) => {
                out.push_str(rest[..open].strip_suffix('!').unwrap_or(&rest[..open]));
                out.push_str(label);
                rest = &rest[end..];
            }
            None => {
                out.push_str(&rest[..=open]);
                rest = &rest[open + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// `*word*` as `word`: a `*` at a word's edge (a letter or digit on one side only) goes; one
/// between spaces (`a * b`) or inside a word (`2*3`) stays.
fn without_star_emphasis(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let word = |c: Option<&char>| c.is_some_and(|c| c.is_alphanumeric());
    chars
        .iter()
        .enumerate()
        .filter(|&(i, c)| {
            let (before, after) = (i.checked_sub(1).and_then(|j| chars.get(j)), chars.get(i + 1));
            *c != '*' || word(before) == word(after)
        })
        .map(|(_, c)| c)
        .collect()
}

/// A size for people: `512 B`, `1.5 KB`, `6.7 MB` (1 KB is 1,024 bytes).
pub fn human_bytes(n: usize) -> String {
    const KB: usize = 1024;
    if n < KB {
        format!("{n} B")
    } else if n < KB * KB {
        format!("{:.1} KB", n as f64 / KB as f64)
    } else {
        format!("{:.1} MB", n as f64 / (KB * KB) as f64)
    }
}

/// Which characters [`split_words`] makes words of, and where it splits them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WordSplit {
    /// Only ASCII letters and digits make words; any other letter splits like punctuation (names
    /// that must be ASCII: Rust identifiers, env vars).
    pub ascii: bool,
    /// Also split where a run of capitals turns into a word (`HTMLParser` -> `HTML` `Parser`),
    /// an acronym's plural (`PRs`) kept whole: for search, where each is a word a query says.
    pub acronyms: bool,
}

/// The words of an identifier or a text, as they are: the runs of letters and digits, split
/// again where a lower-case letter or a digit meets an upper-case one (`getPetById` -> `get`
/// `Pet` `By` `Id`, `v3Api` -> `v3` `Api`). `HTTPStatus` is one word unless `how.acronyms`.
/// The one splitter of identifiers into words for the compiler and the engine.
pub fn split_words(text: &str, how: WordSplit) -> impl Iterator<Item = &str> {
    let apart = move |c: char| if how.ascii { !c.is_ascii_alphanumeric() } else { !c.is_alphanumeric() };
    text.split(apart).filter(|w| !w.is_empty()).flat_map(move |w| split_case(w, how.acronyms))
}

/// One run of letters and digits split at its changes of case (see [`split_words`]).
fn split_case(word: &str, acronyms: bool) -> Vec<&str> {
    let chars: Vec<(usize, char)> = word.char_indices().collect();
    let mut parts = Vec::new();
    let mut start = 0;
    for i in 1..chars.len() {
        let (at, c) = chars[i];
        let prev = chars[i - 1].1;
        let hump = c.is_uppercase() && (prev.is_lowercase() || prev.is_ascii_digit());
        // An acronym's plural (`PRs`, `URLs`) is one word.
        let plural_s = chars.get(i + 1).is_some_and(|(_, n)| *n == 's') && i + 2 == chars.len();
        let next_lower = chars.get(i + 1).is_some_and(|(_, n)| n.is_lowercase()) && !plural_s;
        let acronym_ends = acronyms && c.is_uppercase() && prev.is_uppercase() && next_lower;
        if hump || acronym_ends {
            parts.push(&word[start..at]);
            start = at;
        }
    }
    parts.push(&word[start..]);
    parts
}

/// Digits in groups of three: 1,223.
pub fn group_digits(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Longest API summary (the first paragraph of `info.description`), in characters.
pub const API_SUMMARY_MAX: usize = 300;
/// Longest area description (the first sentence of a tag's description), in characters.
pub const AREA_SUMMARY_MAX: usize = 150;
/// What the instructions say the API is: the first paragraph of its description that says
/// something, as plain text, at most [`API_SUMMARY_MAX`] characters (cut between words).
pub fn api_summary(description: &str) -> String {
    cap_words(&first_paragraph(description), API_SUMMARY_MAX)
}

/// What the map says an area is for: the first sentence of its tag's description, as plain
/// text, at most [`AREA_SUMMARY_MAX`] characters (cut between words).
pub fn area_summary(description: &str) -> String {
    cap_words(&first_sentence(&first_paragraph(description), usize::MAX), AREA_SUMMARY_MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_at_humps_and_punctuation() {
        let split = |text, how| split_words(text, how).collect::<Vec<_>>();
        let text = "getPetById HTMLParser repos/list-for_org v2Beta PRs 名前Id";
        assert_eq!(
            split(text, WordSplit::default()),
            ["get", "Pet", "By", "Id", "HTMLParser", "repos", "list", "for", "org", "v2", "Beta", "PRs", "名前Id"]
        );
        let acronyms = WordSplit { acronyms: true, ..WordSplit::default() };
        assert_eq!(
            split(text, acronyms),
            ["get", "Pet", "By", "Id", "HTML", "Parser", "repos", "list", "for", "org", "v2", "Beta", "PRs", "名前Id"]
        );
        let ascii = WordSplit { ascii: true, ..WordSplit::default() };
        assert_eq!(split("OAuth2Token 名前Id", ascii), ["OAuth2", "Token", "Id"]);
    }

    #[test]
    fn sizes_for_people() {
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(1536), "1.5 KB");
        assert_eq!(human_bytes(7 * 1024 * 1024), "7.0 MB");
    }

    #[test]
    fn first_sentences() {
        assert_eq!(first_sentence("Lists pets. Paginated.", 200), "Lists pets.");
        assert_eq!(first_sentence("Sort order, e.g. asc. Default desc.", 200), "Sort order, e.g. asc.");
        assert_eq!(first_sentence("Version 1.2 of the API. More.", 200), "Version 1.2 of the API.");
        assert_eq!(first_sentence("No period\nbut lines\n\nand a paragraph", 200), "No period but lines");
        assert_eq!(first_sentence("abcdef", 4), "abc…");
        assert_eq!(first_sentence("  ", 10), "");
    }

    #[test]
    fn cuts_fall_between_words() {
        assert_eq!(cap_words("one two three four", 10), "one two…");
        assert_eq!(cap_words("one two three", 20), "one two three");
        assert_eq!(cap_words("abcdefghijklmnop", 8), "abcdefg…", "one long word is cut inside");
        assert_eq!(cap_words("one two, three", 9), "one two…", "no trailing comma");
    }

    #[test]
    fn html_goes_and_leaves_its_text() {
        assert_eq!(plain("<p>Lists <b>pets</b>.</p><!-- hidden -->Done"), "Lists pets. Done");
        assert_eq!(plain("script </script><script>alert(1)</script> end"), "script alert(1) end");
        assert_eq!(plain("a < b and c > d"), "a < b and c > d", "comparisons are text");
        assert_eq!(plain("Tom &amp; Jerry&nbsp;&lt;3"), "Tom & Jerry <3");
        assert_eq!(plain("open <!-- never closed"), "open");
    }

    #[test]
    fn markdown_goes_and_leaves_its_text() {
        assert_eq!(plain("# Title\n\n> [!NOTE]\n> A **bold** `code` *note*."), "Title A bold code note.");
        assert_eq!(plain("- one\n* two\n+ three\n12. four"), "one two three four");
        assert_eq!(plain("See [the docs](https://x.io) and ![logo](l.png)."), "See the docs and logo.");
        assert_eq!(plain("Use `snake_case` names, 2 * 3"), "Use snake_case names, 2 * 3");
        assert_eq!(plain("| a | b |\n|---|:-:|\n| 1 | 2 |"), "| a | b | | 1 | 2 |");
        assert_eq!(plain("without the `.git` extension, for .NET"), "without the .git extension, for .NET");
        assert_eq!(plain("Lists <b>pets</b> , then <i>more</i> ..."), "Lists pets, then more...");
    }

    #[test]
    fn no_line_or_control_character_survives() {
        let hostile = "a\nb\r\n\tc\u{0}d\u{2028}e\u{2029}f\u{85}g\n\n- h";
        let text = plain(hostile);
        assert_eq!(text, "a b c d e f g h");
        assert!(!text.chars().any(char::is_control));
    }

    #[test]
    fn the_first_paragraph_that_says_something() {
        let doc = "# Introduction\n\nThe API manages\nDroplets.\n\n## Auth\n\nTokens.";
        assert_eq!(first_paragraph(doc), "The API manages Droplets.");
        assert_eq!(first_paragraph("```\ncode\n```\n\n<br/>\n\nWords here."), "Words here.");
        assert_eq!(first_paragraph("# Only a heading"), "");
        assert_eq!(first_paragraph(""), "");
    }
}
