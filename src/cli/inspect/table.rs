//! The tools of an `inspect` report as a table that fits a width (the terminal's, see
//! [`terminal_width`]): the path and tool columns narrow ([`NARROWING`]) when the rows would be
//! wider (after the gaps between columns narrow to one space), their long cells shortened
//! in the middle with `…` (a path keeps its first and last segments whole when it can); numbers
//! and annotations are never cut.

use std::fmt::Write as _;

/// The width of a report that is not shown on a terminal of known size.
pub(crate) const DEFAULT_WIDTH: usize = 100;

/// Spaces between two columns; one when the table is too wide with two.
/// The column of the tool names, and of the paths.
const TOOL: usize = 0;
const PATH: usize = 2;
/// How narrow the path and tool columns get, in stages: the one further above its floor narrows
/// first, one character at a time, until the table fits; then the next stage's floors apply (a
/// table that does not fit at the last is wider).
const NARROWING: [(usize, usize); 3] = [(16, 24), (12, 16), (8, 10)];

/// The width to fit: `COLUMNS` when set, else the terminal's that stdout is, else
/// [`DEFAULT_WIDTH`].
pub(crate) fn terminal_width() -> usize {
    let columns = std::env::var("COLUMNS").ok().and_then(|c| c.trim().parse::<usize>().ok()).filter(|c| *c > 0);
    columns
        .or_else(|| terminal_size::terminal_size_of(std::io::stdout()).map(|(w, _)| usize::from(w.0)))
        .unwrap_or(DEFAULT_WIDTH)
}

/// `rows` under `headers`, within `width` characters when the columns can narrow enough; the
/// columns `right` are aligned right, the last is not padded.
pub(crate) fn render<const N: usize>(
    headers: [&str; N],
    rows: &[[String; N]],
    right: &[usize],
    width: usize,
) -> String {
    let mut widths = headers.map(|h| h.chars().count());
    for r in rows {
        for (w, cell) in widths.iter_mut().zip(r) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let row_width = |w: &[usize; N], gap: usize| w.iter().sum::<usize>() + gap * N.saturating_sub(1);
    let gap = if row_width(&widths, 2) <= width { 2 } else { 1 };
    if N > PATH {
        for (path_floor, tool_floor) in NARROWING {
            let floors = [(PATH, path_floor.max(headers[PATH].len())), (TOOL, tool_floor.max(headers[TOOL].len()))];
            while row_width(&widths, gap) > width {
                let above = |(c, floor): (usize, usize)| widths[c].saturating_sub(floor);
                let Some((column, _)) = floors.into_iter().filter(|f| above(*f) > 0).max_by_key(|f| above(*f)) else {
                    break;
                };
                widths[column] -= 1;
            }
        }
    }
    let line = |cells: [&str; N]| {
        let mut l = String::new();
        for (i, (c, w)) in cells.iter().zip(widths).enumerate() {
            let c = if i == PATH { fit_path(c, w) } else { fit_middle(c, w) };
            if i + 1 == N {
                l.push_str(&c);
            } else if right.contains(&i) {
                let _ = write!(l, "{c:>w$}{:gap$}", "");
            } else {
                let _ = write!(l, "{c:<w$}{:gap$}", "");
            }
        }
        l.trim_end().to_string()
    };
    let mut out = String::new();
    let _ = writeln!(out, "{}", line(headers));
    for r in rows {
        let _ = writeln!(out, "{}", line(r.each_ref().map(String::as_str)));
    }
    out
}

/// `text` within `width` characters: its head and tail with `…` between (the tail the longer).
fn fit_middle(text: &str, width: usize) -> String {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= width || width < 3 {
        return text.to_string();
    }
    let tail = (width - 1) / 2 + (width - 1) % 2;
    let head = width - 1 - tail;
    let mut out: String = chars[..head].iter().collect();
    out.push('…');
    out.extend(&chars[chars.len() - tail..]);
    out
}

/// A path within `width` characters: its first segment and as many whole last segments as fit
/// around `…` (`/repos/…/labels/{name}`), else [`fit_middle`].
fn fit_path(path: &str, width: usize) -> String {
    if path.chars().count() <= width {
        return path.to_string();
    }
    // `/repos/`: the first segment with the slashes around it.
    let first = path.char_indices().skip(1).find(|(_, c)| *c == '/').map_or(path.len(), |(i, _)| i + 1);
    let head = &path[..first];
    let room = width.saturating_sub(head.chars().count() + "…/".chars().count());
    // The longest tail of whole segments that fits the room left.
    let tail = path[first..]
        .char_indices()
        .filter(|(_, c)| *c == '/')
        .map(|(i, _)| &path[first + i + 1..])
        .find(|t| !t.is_empty() && t.chars().count() <= room);
    match tail {
        Some(t) => format!("{head}…/{t}"),
        None => fit_middle(path, width),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_paths_keep_their_first_and_last_segments() {
        let path = "/repos/{owner}/{repo}/actions/runners/{runner_id}/labels/{name}";
        assert_eq!(fit_path(path, 30), "/repos/…/labels/{name}");
        assert_eq!(fit_path(path, 80), path);
        assert_eq!(fit_path("/a-very-long-single-segment-of-a-path", 16), "/a-very…f-a-path");
    }

    #[test]
    fn tool_names_are_cut_in_the_middle() {
        assert_eq!(
            fit_middle("actions_get-github-default-workflow-permissions-organization", 24),
            "actions_get…organization"
        );
        assert_eq!(fit_middle("short", 24), "short");
    }

    #[test]
    fn a_table_too_wide_narrows_its_paths_then_its_tools() {
        let row = |tool: &str, path: &str| [tool.to_string(), "12".to_string(), path.to_string()];
        let headers = ["TOOL", "NUMBER", "PATH"];
        // PATH is column 2 here, the last: not padded.
        let rows = [row(&"t".repeat(40), &format!("/{}", "p/".repeat(40))), row("short", "/x")];
        let text = render(headers, &rows, &[1], 70);
        assert!(text.lines().all(|l| l.chars().count() <= 70), "{text}");
        let wide = render(headers, &rows, &[1], 500);
        assert!(wide.lines().any(|l| l.chars().count() > 100), "nothing narrows in a wide terminal");
    }
}
