//! How span fields are written into logs: as tracing-subscriber writes them, with a shortcut for
//! the span every tool call opens (`call{request_id=…}`). That span is made for each call whether
//! or not anything is logged during it, and the fmt layer writes its fields as it is made:
//! through `write!`, styles and all, that was 1,500 instructions a call (2 % of one).

use std::fmt::{self, Write as _};

use tracing::field::{Field, Visit};
use tracing_subscriber::field::RecordFields;
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FormatFields, FormattedFields};

/// Writes span and event fields as `inner` does, and a lone `request_id` (16 hex digits, as
/// [`crate::metrics::RequestId`] shows itself) directly, exactly as `inner` would write it.
pub(crate) struct CallFields<N> {
    inner: N,
    json: bool,
}

impl<N> CallFields<N> {
    /// Around tracing-subscriber's `DefaultFields` (`name=value`).
    pub(crate) fn text(inner: N) -> CallFields<N> {
        CallFields { inner, json: false }
    }

    /// Around tracing-subscriber's `JsonFields` (`{"name":"value"}`).
    pub(crate) fn json(inner: N) -> CallFields<N> {
        CallFields { inner, json: true }
    }
}

impl<'w, N> FormatFields<'w> for CallFields<N>
where
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_fields<R: RecordFields>(&self, mut writer: Writer<'w>, fields: R) -> fmt::Result {
        let mut only = LoneRequestId::default();
        fields.record(&mut only);
        let Some(id) = only.id.filter(|_| !only.others) else {
            return self.inner.format_fields(writer, fields);
        };
        let id = id.as_str();
        match (self.json, writer.has_ansi_escapes()) {
            (true, _) => write_all(&mut writer, &["{\"request_id\":\"", id, "\"}"]),
            (false, false) => write_all(&mut writer, &["request_id=", id]),
            // `DefaultFields`' styles: the name in italics, `=` dimmed.
            (false, true) => write_all(&mut writer, &["\x1b[3mrequest_id\x1b[0m\x1b[2m=\x1b[0m", id]),
        }
    }

    /// Fields recorded on a span later: after a space in text (as `DefaultFields` adds them),
    /// merged into the object by `inner` in JSON.
    fn add_fields(&self, current: &'w mut FormattedFields<Self>, fields: &tracing::span::Record<'_>) -> fmt::Result {
        if !self.json {
            if !current.fields.is_empty() {
                current.fields.push(' ');
            }
            return self.format_fields(current.as_writer(), fields);
        }
        let mut own = FormattedFields::<N>::new(std::mem::take(&mut current.fields));
        let result = self.inner.add_fields(&mut own, fields);
        current.fields = own.fields;
        result
    }
}

/// Writes `parts` in one piece: the span's `String` is allocated once, at its final size.
fn write_all(writer: &mut Writer<'_>, parts: &[&str]) -> fmt::Result {
    let mut line = [0u8; 64];
    let mut len = 0;
    for part in parts {
        let Some(to) = line.get_mut(len..len + part.len()) else {
            return parts.iter().try_for_each(|p| writer.write_str(p));
        };
        to.copy_from_slice(part.as_bytes());
        len += part.len();
    }
    // Whole `str`s, copied whole: still UTF-8.
    writer.write_str(std::str::from_utf8(&line[..len]).map_err(|_| fmt::Error)?)
}

/// A set of fields that is one `request_id` written as 16 hex digits, or not.
#[derive(Default)]
struct LoneRequestId {
    id: Option<HexId>,
    others: bool,
}

impl Visit for LoneRequestId {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if field.name() != "request_id" || self.id.is_some() {
            self.others = true;
            return;
        }
        let mut id = HexId::default();
        // Anything else (another crate's `request_id`, say) is written by `inner`, as always.
        if write!(id, "{value:?}").is_ok() && id.len == 16 {
            self.id = Some(id);
        } else {
            self.others = true;
        }
    }
}

/// Up to 16 lower-case hex digits, written through `fmt` without allocating.
#[derive(Default)]
struct HexId {
    digits: [u8; 16],
    len: usize,
}

impl HexId {
    fn as_str(&self) -> &str {
        // Only hex digits are ever written in.
        std::str::from_utf8(&self.digits[..self.len]).unwrap_or_default()
    }
}

impl fmt::Write for HexId {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len + s.len();
        if end > self.digits.len() || !s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            return Err(fmt::Error);
        }
        self.digits[self.len..end].copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use tracing_subscriber::fmt::format::{DefaultFields, JsonFields};

    use super::*;
    use crate::metrics::RequestId;

    /// What a subscriber writes, for comparing formatters.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Captured {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// Logs the same spans and events through the plain formatter and through `CallFields`.
    fn both(json: bool, ansi: bool, log: impl Fn()) -> (String, String) {
        let run = |ours: bool| {
            let out = Captured::default();
            let writer = {
                let out = out.clone();
                move || out.clone()
            };
            let builder = tracing_subscriber::fmt().with_writer(writer).with_ansi(ansi).without_time();
            let dispatch: tracing::Dispatch = match (json, ours) {
                (false, false) => builder.fmt_fields(DefaultFields::new()).finish().into(),
                (false, true) => builder.fmt_fields(CallFields::text(DefaultFields::new())).finish().into(),
                (true, false) => builder.json().flatten_event(true).with_span_list(false).finish().into(),
                (true, true) => builder
                    .json()
                    .flatten_event(true)
                    .with_span_list(false)
                    .fmt_fields(CallFields::json(JsonFields::new()))
                    .finish()
                    .into(),
            };
            tracing::dispatcher::with_default(&dispatch, &log);
            String::from_utf8(out.0.lock().unwrap().clone()).unwrap()
        };
        (run(false), run(true))
    }

    /// The spans and events of `calls_and_others` through both formatters.
    fn logged(json: bool, ansi: bool) -> (String, String) {
        let id = RequestId::next();
        both(json, ansi, || calls_and_others(&id))
    }

    fn calls_and_others(id: &RequestId) {
        let span = tracing::info_span!("call", request_id = %id);
        span.in_scope(|| tracing::warn!(attempt = 2, "retrying"));
        let other = tracing::info_span!("other", request_id = "not-hex", n = 3);
        other.in_scope(|| tracing::info!("inside"));
        let two = tracing::info_span!("two", request_id = %id, extra = 1);
        two.in_scope(|| tracing::info!("inside"));
        let later = tracing::info_span!("later", request_id = %id, late = tracing::field::Empty);
        later.record("late", "yes");
        later.in_scope(|| tracing::error!(request_id = %id, "with its own"));
    }

    #[test]
    fn text_logs_are_what_default_fields_write() {
        let (plain, ours) = logged(false, false);
        assert!(plain.contains("call{request_id="), "{plain}");
        assert_eq!(ours, plain);
    }

    #[test]
    fn coloured_text_logs_are_what_default_fields_write() {
        let (plain, ours) = logged(false, true);
        assert!(plain.contains("\x1b[3mrequest_id"), "{plain:?}");
        assert_eq!(ours, plain);
    }

    #[test]
    fn json_logs_are_what_json_fields_write() {
        let (plain, ours) = logged(true, false);
        assert!(plain.contains("\"span\":{\"request_id\":"), "{plain}");
        assert!(plain.contains("\"late\":\"yes\""), "{plain}");
        assert_eq!(ours, plain);
    }

    /// 16 lower-case hex digits, nothing else: a `Debug` that writes quotes, capitals or more
    /// goes to the plain formatter.
    #[test]
    fn only_sixteen_hex_digits_are_an_id() {
        let written = |text: &dyn fmt::Debug| {
            let mut id = HexId::default();
            write!(id, "{text:?}").ok().filter(|_| id.len == 16).map(|_| id.as_str().to_string())
        };
        assert_eq!(written(&tracing::field::display(RequestId::next())).map(|s| s.len()), Some(16));
        assert_eq!(written(&format_args!("00000000000000ff")).as_deref(), Some("00000000000000ff"));
        assert_eq!(written(&"00000000000000ff"), None, "quoted");
        assert_eq!(written(&format_args!("00000000000000FF")), None);
        assert_eq!(written(&format_args!("00000000000000ff0")), None);
        assert_eq!(written(&format_args!("ff")), None);
    }
}
