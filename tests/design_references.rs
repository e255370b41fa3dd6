//! Every section reference (`§N.M`) in the code and the docs names a heading that exists in
//! `docs/design.md`, the one document of the repository that comments cite; references to
//! documents outside the repository are not allowed.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const SECTION: char = '\u{a7}';

/// Documents that comments used to cite and that are not in the repository.
const ELSEWHERE: &[&str] = &[
    "arc.md",
    "github-api.md",
    "anchors.md",
    "DESIGN.md",
    "DESIGN ",
];

/// The section numbers of `docs/design.md`'s headings: `## 4. The drain pipeline` → `4`,
/// `### 4.3 Proving a runner idle` → `4.3`.
fn headings(design: &str) -> BTreeSet<String> {
    design
        .lines()
        .filter_map(|l| l.strip_prefix('#'))
        .map(|l| l.trim_start_matches('#').trim_start())
        .filter_map(|l| l.split_whitespace().next())
        .map(|n| n.trim_end_matches('.').to_owned())
        .filter(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit() || c == '.'))
        .collect()
}

/// The section numbers cited on a line: `§4.3`, and ranges `§7.1–7.4` give both ends.
fn cited(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    for piece in line.split(SECTION).skip(1) {
        let number: String = piece
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect();
        let number = number.trim_end_matches('.');
        if number.is_empty() {
            continue;
        }
        out.push(number.to_owned());
        let rest = &piece[number.len()..];
        if let Some(end) = rest.strip_prefix('–') {
            let end: String = end
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '.')
                .collect();
            let end = end.trim_end_matches('.');
            if !end.is_empty() {
                out.push(end.to_owned());
            }
        }
    }
    out
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if path.is_dir() {
            if name != "target" && name != ".git" && name != "snapshots" {
                files(&path, out);
            }
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("rs" | "md" | "sh" | "toml")
        ) {
            out.push(path);
        }
    }
}

#[test]
fn headings_and_citations_are_read_as_written() {
    let h = headings("# arcctl\n## 4. The pipeline\n### 4.3 Proving idle\n## Notes\n");
    assert_eq!(h, BTreeSet::from(["4".to_owned(), "4.3".to_owned()]));
    assert_eq!(cited("see §4.3 and §2."), vec!["4.3", "2"]);
    assert_eq!(cited("ARC (§7.1–7.4)"), vec!["7.1", "7.4"]);
    assert!(cited("as `§N.M`").is_empty());
}

#[test]
fn every_section_reference_names_a_heading_of_the_design() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let design = std::fs::read_to_string(root.join("docs/design.md")).expect("docs/design.md");
    let sections = headings(&design);
    assert!(sections.contains("4.2"), "headings not found: {sections:?}");

    let mut paths = Vec::new();
    for dir in ["src", "crates", "tests", "benches", "docs", ".ci"] {
        files(&root.join(dir), &mut paths);
    }
    paths.extend(["README.md", "CONTRIBUTING.md"].map(|f| root.join(f)));
    let this = Path::new(file!()).file_name();

    let mut wrong = Vec::new();
    let mut seen = 0;
    for path in &paths {
        if path.file_name() == this {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let shown = path.strip_prefix(root).unwrap_or(path).display();
        for (i, line) in text.lines().enumerate() {
            if !line.contains(SECTION) {
                continue;
            }
            if let Some(doc) = ELSEWHERE.iter().find(|d| line.contains(*d)) {
                wrong.push(format!("{shown}:{}: cites `{doc}`: {line}", i + 1));
            }
            for n in cited(line) {
                seen += 1;
                if !sections.contains(&n) {
                    wrong.push(format!(
                        "{shown}:{}: no heading {SECTION}{n}: {line}",
                        i + 1
                    ));
                }
            }
        }
    }
    assert!(
        seen > 20,
        "only {seen} references found: is the scan reading the tree?"
    );
    assert!(
        wrong.is_empty(),
        "section references that docs/design.md does not have:\n{}",
        wrong.join("\n")
    );
}
