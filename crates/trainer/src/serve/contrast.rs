//! The style sheet's colours checked for contrast (WCAG 2's ratio): every
//! text colour against every background it is drawn on, at least 4.5:1
//! (AA for text). What a reviewer once measured by hand in a browser is
//! read here from the style sheet itself, so a colour changed there is
//! checked again.

/// The colour of `property` in the style sheet's first rule for
/// exactly `selector` (the first `#rgb` or `#rrggbb` after the property's
/// name).
fn colour(css: &str, selector: &str, property: &str) -> [f64; 3] {
    let rule = css
        .lines()
        .find(|line| line.starts_with(&format!("{selector} {{")))
        .unwrap_or_else(|| panic!("no rule for {selector}"));
    let digits = rule
        .split(&format!("{property}:"))
        .nth(1)
        .and_then(|rest| rest.split('#').nth(1))
        .map(|rest| {
            rest.split(|c: char| !c.is_ascii_hexdigit())
                .next()
                .unwrap_or("")
        })
        .unwrap_or_else(|| panic!("no {property} in {rule}"));
    hex(digits)
}

/// `rrggbb` or `rgb` as channels from 0 to 1.
fn hex(digits: &str) -> [f64; 3] {
    let digits: String = match digits.len() {
        3 => digits.chars().flat_map(|c| [c, c]).collect(),
        6 => digits.to_owned(),
        _ => panic!("'{digits}' is not a colour"),
    };
    let channel =
        |at: usize| f64::from(u8::from_str_radix(&digits[at..at + 2], 16).unwrap()) / 255.0;
    [channel(0), channel(2), channel(4)]
}

fn luminance([r, g, b]: [f64; 3]) -> f64 {
    let linear = |c: f64| {
        if c <= 0.040_45 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b)
}

fn contrast(a: [f64; 3], b: [f64; 3]) -> f64 {
    let (la, lb) = (luminance(a), luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

#[test]
fn known_ratios() {
    assert!((contrast(hex("000000"), hex("fff")) - 21.0).abs() < 1e-9);
    assert!((contrast(hex("777777"), hex("fff")) - 4.48).abs() < 0.01);
}

#[test]
fn every_text_colour_reads_against_every_background_it_is_drawn_on() {
    let css = super::STYLE;
    let table = colour(css, "body", "background");
    let text = colour(css, "body", "color");
    let panel = colour(css, ".hints", "background");
    let nav = colour(css, "nav", "background");
    let error = colour(css, ".error", "background");
    let card = colour(css, ".card", "background");
    let unplayable = colour(css, "button.card.illegal", "background");
    let off_card = [
        ("text", text),
        ("red suit", colour(css, ".red", "color")),
        ("black suit", colour(css, ".black", "color")),
        ("link", colour(css, "a", "color")),
    ];
    for (what, fg) in off_card {
        for (on, bg) in [
            ("table", table),
            ("panel", panel),
            ("nav", nav),
            ("error", error),
        ] {
            let ratio = contrast(fg, bg);
            assert!(ratio >= 4.5, "{what} on the {on}: {ratio:.2}:1");
        }
    }
    let on_card = [
        ("red suit", colour(css, ".card .red", "color")),
        ("black suit", colour(css, ".card .black", "color")),
    ];
    for (what, fg) in on_card {
        for (on, bg) in [("card", card), ("unplayable card", unplayable)] {
            let ratio = contrast(fg, bg);
            assert!(ratio >= 4.5, "{what} on a {on}: {ratio:.2}:1");
        }
    }
    // A move's mark is written on it; its colour repeats the mark and
    // keeps the move's text readable.
    for mark in [
        ".mark-blunder",
        ".mark-mistake",
        ".mark-dubious",
        ".mark-only",
        ".mark-differs",
    ] {
        let ratio = contrast(text, colour(css, mark, "background"));
        assert!(ratio >= 4.5, "text on {mark}: {ratio:.2}:1");
    }
    let greyed = colour(css, ".stepper .off", "color");
    assert!(contrast(greyed, table) >= 4.5, "a step that is not there");
    // The focus ring stands out against the table it is drawn on.
    let ring = colour(css, ":focus-visible", "outline");
    assert!(contrast(ring, table) >= 3.0);
}
