//! Plain aligned columns, kubectl-style: upper-case headers, three spaces between columns, no
//! borders, the last column unpadded. Stable for snapshots and friendly to `awk` and `cut`.
//! Colour, when on, wraps a cell after padding so alignment never counts escape codes.

/// An ANSI colour for a cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Color {
    Green,
    Yellow,
    Red,
    Magenta,
    Cyan,
}

impl Color {
    fn code(self) -> &'static str {
        match self {
            Color::Green => "32",
            Color::Yellow => "33",
            Color::Red => "31",
            Color::Magenta => "35",
            Color::Cyan => "36",
        }
    }
}

/// A cell: text and an optional colour.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cell {
    pub text: String,
    pub color: Option<Color>,
}

impl Cell {
    pub fn plain(text: impl Into<String>) -> Self {
        Cell {
            text: text.into(),
            color: None,
        }
    }

    pub fn colored(text: impl Into<String>, color: Option<Color>) -> Self {
        Cell {
            text: text.into(),
            color,
        }
    }
}

const GAP: &str = "   ";

/// Renders rows under `headers`; `show_headers` false drops the header line.
pub fn render(headers: &[&str], rows: &[Vec<Cell>], show_headers: bool, color: bool) -> String {
    let width = |s: &str| s.chars().count();
    // Hidden headers don't widen their columns.
    let mut widths: Vec<usize> = headers
        .iter()
        .map(|h| if show_headers { width(h) } else { 0 })
        .collect();
    for row in rows {
        for (i, c) in row.iter().enumerate() {
            if let Some(w) = widths.get_mut(i) {
                *w = (*w).max(width(&c.text));
            }
        }
    }
    let mut out = String::new();
    let mut line = |cells: &mut dyn Iterator<Item = (&str, Option<Color>)>| {
        let mut text = String::new();
        let cells: Vec<(&str, Option<Color>)> = cells.collect();
        let last = cells.len().saturating_sub(1);
        for (i, (t, c)) in cells.into_iter().enumerate() {
            let pad = if i == last {
                String::new()
            } else {
                " ".repeat(widths[i].saturating_sub(width(t)))
            };
            match c.filter(|_| color) {
                Some(c) => text.push_str(&format!("\x1b[{}m{t}\x1b[0m", c.code())),
                None => text.push_str(t),
            }
            text.push_str(&pad);
            if i != last {
                text.push_str(GAP);
            }
        }
        out.push_str(text.trim_end());
        out.push('\n');
    };
    if show_headers {
        line(&mut headers.iter().map(|h| (*h, None)));
    }
    for row in rows {
        line(&mut row.iter().map(|c| (c.text.as_str(), c.color)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligns_columns_and_drops_headers() {
        let rows = vec![
            vec![
                Cell::plain("a"),
                Cell::plain("long-value"),
                Cell::plain("x"),
            ],
            vec![Cell::plain("bbbb"), Cell::plain("v"), Cell::plain("yy")],
        ];
        assert_eq!(
            render(&["N", "VALUE", "Z"], &rows, true, false),
            "N      VALUE        Z\na      long-value   x\nbbbb   v            yy\n"
        );
        assert_eq!(
            render(&["N", "VALUE", "Z"], &rows, false, false),
            "a      long-value   x\nbbbb   v            yy\n"
        );
    }

    #[test]
    fn colour_does_not_break_alignment() {
        let rows = vec![vec![
            Cell::colored("idle", Some(Color::Green)),
            Cell::plain("x"),
        ]];
        let out = render(&["STATE", "J"], &rows, true, true);
        assert_eq!(out, "STATE   J\n\x1b[32midle\x1b[0m    x\n");
        // Off: no escape codes at all.
        assert!(!render(&["STATE", "J"], &rows, true, false).contains('\x1b'));
    }
}
