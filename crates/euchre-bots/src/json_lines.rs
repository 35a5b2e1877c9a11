//! Reading JSON lines from a program that may send anything: `trainer act`
//! and `trainer replay` read one request a line and answer each line, a
//! bad one too. A line is read whole up to a cap and the rest of a longer
//! one is skipped unread, so no line is buffered without bound; bytes that
//! are not UTF-8 are a bad line, not the end of the input.

use std::io::BufRead;

/// One input line, as far as it could be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// The line's text, without its line ending (`\n` or `\r\n`).
    Text(String),
    NotUtf8,
    /// Longer than the cap: the rest of it was skipped unread.
    TooLong,
}

impl Line {
    /// The line's text when it can be a request, or why it cannot (for
    /// the answer to a bad line): empty, not UTF-8, or past `cap` bytes.
    pub fn into_request(self, cap: usize) -> Result<String, String> {
        match self {
            Line::Text(text) if text.trim().is_empty() => {
                Err("the line is empty; send one JSON object per line".to_owned())
            }
            Line::Text(text) => Ok(text),
            Line::NotUtf8 => {
                Err("the line is not UTF-8 text; send one JSON object per line".to_owned())
            }
            Line::TooLong => Err(format!(
                "the line is longer than {cap} bytes; a request is one short JSON object"
            )),
        }
    }
}

/// Reads up to the next newline, holding at most `cap` bytes of it;
/// `None` at the end of the input.
pub fn read_line(input: &mut impl BufRead, cap: usize) -> std::io::Result<Option<Line>> {
    let mut bytes = Vec::new();
    let mut too_long = false;
    let mut read_any = false;
    loop {
        let buffer = input.fill_buf()?;
        if buffer.is_empty() {
            break;
        }
        read_any = true;
        let (chunk, ends) = match buffer.iter().position(|&byte| byte == b'\n') {
            Some(at) => (&buffer[..=at], true),
            None => (buffer, false),
        };
        let used = chunk.len();
        if !too_long {
            if bytes.len() + used > cap + 1 {
                too_long = true;
                bytes = Vec::new();
            } else {
                bytes.extend_from_slice(chunk);
            }
        }
        input.consume(used);
        if ends {
            break;
        }
    }
    if !read_any {
        return Ok(None);
    }
    if too_long {
        return Ok(Some(Line::TooLong));
    }
    while bytes
        .last()
        .is_some_and(|&byte| byte == b'\n' || byte == b'\r')
    {
        bytes.pop();
    }
    Ok(Some(match String::from_utf8(bytes) {
        Ok(text) => Line::Text(text),
        Err(_) => Line::NotUtf8,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], cap: usize) -> Vec<String> {
        let mut reader = input;
        let mut out = Vec::new();
        while let Some(line) = read_line(&mut reader, cap).unwrap() {
            out.push(match line {
                Line::Text(text) => text,
                Line::NotUtf8 => "<not utf-8>".to_owned(),
                Line::TooLong => "<too long>".to_owned(),
            });
        }
        out
    }

    #[test]
    fn lines_are_read_whole_capped_and_checked_for_utf8() {
        assert_eq!(lines(b"a\nbc\r\n\nd", 8), ["a", "bc", "", "d"]);
        assert_eq!(lines(b"ok\n\xff\nok", 8), ["ok", "<not utf-8>", "ok"]);
        assert_eq!(
            lines(b"short\n0123456789abc\nafter\n", 8),
            ["short", "<too long>", "after"]
        );
        assert_eq!(lines(b"", 8), Vec::<String>::new());
    }
}
