//! The top-level modules of `src/` import one way: no module reaches, through `crate::`
//! paths, a module that reaches it back (docs/design.md §6).
//!
//! The test reads the sources, not the compiled crate: every `crate::<top>` path in
//! `src/<top>.rs` or `src/<top>/**.rs` is an edge `<top> → <other>`, the crate root
//! (`src/lib.rs`, whose items `crate::run` names) is the node `lib`. Test code counts like
//! any other code: `*_tests.rs` files and inline `#[cfg(test)]` modules are read too, because
//! a test that needs a module above its own is the same knot. Comments and string literals
//! are skipped. Relative paths (`super::`, bare names brought in by `use`) are not followed:
//! the tree names other top-level modules by `crate::` paths, and the `use` that brings a
//! name in is itself such a path.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One reference that makes an edge, for the failure message.
#[derive(Debug, Clone)]
struct Witness {
    file: String,
    line: usize,
}

/// `from → to`, each with the first place that makes the edge.
type Graph = BTreeMap<String, BTreeMap<String, Witness>>;

#[test]
fn top_level_modules_form_layers_without_cycles() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = graph_of(&src);
    assert!(
        graph.len() > 5,
        "found only {:?} under {}: is the scan reading the right tree?",
        graph.keys().collect::<Vec<_>>(),
        src.display()
    );
    let knots = cycles(&graph);
    if knots.is_empty() {
        return;
    }
    let mut report = String::new();
    for knot in &knots {
        report.push_str(&format!(
            "\nmodules {{{}}} import each other:\n",
            knot.members.join(", ")
        ));
        for pair in knot.cycle.windows(2) {
            let w = &graph[&pair[0]][&pair[1]];
            report.push_str(&format!(
                "  {} → {}   ({}:{})\n",
                pair[0], pair[1], w.file, w.line
            ));
        }
        // The other edges inside the knot: each one must go too (or turn around).
        for from in &knot.members {
            for (to, w) in &graph[from] {
                let on_cycle = knot.cycle.windows(2).any(|p| &p[0] == from && &p[1] == to);
                if knot.members.contains(to) && !on_cycle {
                    report.push_str(&format!("  and {from} → {to}   ({}:{})\n", w.file, w.line));
                }
            }
        }
    }
    panic!(
        "{} import cycle(s) between top-level modules of src/:{report}",
        knots.len()
    );
}

#[test]
fn the_scan_sees_paths_in_code_only() {
    let code = r##"
        use crate::error::{Error, Result};
        use crate::{cli::Rate, github as gh, inventory::{self, State}};
        // use crate::comment_line;
        /* crate::block /* nested crate::deeper */ still */
        let s = "crate::in_a_string";
        let r = r#"crate::in_a_raw_string"#;
        let c = '"'; let q = '\''; let l: &'static str = "x";
        crate::run(args).await;
        let x = crate::drain::Rate::new(); let y = not_crate::context::X;
    "##;
    let found: Vec<String> = references(code).into_iter().map(|(m, _)| m).collect();
    assert_eq!(
        found,
        ["error", "cli", "github", "inventory", "run", "drain"],
        "{code}"
    );
    // Line numbers count from 1 and survive skipped comments and strings.
    let lines: Vec<usize> = references("/* a\nb */ \"c\nd\"\ncrate::x::y")
        .into_iter()
        .map(|(_, l)| l)
        .collect();
    assert_eq!(lines, [4]);
}

/// The edges between top-level modules, read from every `.rs` file under `src`.
fn graph_of(src: &Path) -> Graph {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    let modules: BTreeSet<String> = files
        .iter()
        .filter_map(|f| top_module(src, f))
        .filter(|m| m != "lib")
        .collect();
    let mut graph = Graph::new();
    for file in &files {
        let Some(from) = top_module(src, file) else {
            continue;
        };
        let text = std::fs::read_to_string(file)
            .unwrap_or_else(|e| panic!("failed to read {}: {e}", file.display()));
        let shown = file
            .strip_prefix(src.parent().unwrap_or(src))
            .unwrap_or(file)
            .display()
            .to_string();
        let node = graph.entry(from.clone()).or_default();
        for (name, line) in references(&text) {
            // `crate::run`, `crate::Something`: an item of the crate root.
            let to = if modules.contains(&name) {
                name
            } else {
                "lib".to_owned()
            };
            if to != from {
                node.entry(to).or_insert_with(|| Witness {
                    file: shown.clone(),
                    line,
                });
            }
        }
        if from == "lib" {
            // The root names its own modules without `crate::` (`cmd::list::run`).
            for (name, line) in root_references(&text, &modules) {
                node.entry(name).or_insert_with(|| Witness {
                    file: shown.clone(),
                    line,
                });
            }
        }
    }
    graph
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("failed to list {}: {e}", dir.display()));
    for entry in entries {
        let path = entry
            .unwrap_or_else(|e| panic!("failed to list {}: {e}", dir.display()))
            .path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `src/drain/pacer.rs` → `drain`, `src/config.rs` → `config`, `src/lib.rs` → `lib`;
/// `src/main.rs` is another crate (it names the library `arcctl::`), so `None`.
fn top_module(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).ok()?;
    let first = rel.components().next()?.as_os_str().to_str()?;
    match first {
        "main.rs" => None,
        "lib.rs" => Some("lib".to_owned()),
        _ => Some(first.trim_end_matches(".rs").to_owned()),
    }
}

/// The first segment after each `crate::` in code, with its line: `crate::a::b` gives `a`,
/// `crate::{a::b, c}` gives `a` and `c`.
fn references(text: &str) -> Vec<(String, usize)> {
    let code = code_only(text);
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(found) = code[at..].find("crate::") {
        let start = at + found;
        at = start + "crate::".len();
        let before = code[..start].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':' || c == '$') {
            continue;
        }
        let line = code[..start].matches('\n').count() + 1;
        let rest = &code[at..];
        if let Some(group) = rest.strip_prefix('{') {
            for name in group_heads(group) {
                out.push((name, line));
            }
        } else if let Some(name) = ident_at(rest) {
            out.push((name, line));
        }
    }
    out
}

/// The first segment of each path in a `use crate::{…}` group (text after the `{`).
fn group_heads(group: &str) -> Vec<String> {
    let mut heads = Vec::new();
    let mut depth = 0;
    let mut expect_head = true;
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => expect_head = true,
            c if expect_head && depth == 0 && (c.is_alphabetic() || c == '_') => {
                expect_head = false;
                if let Some(name) = ident_at(&group[i..]).filter(|n| n != "self") {
                    heads.push(name);
                }
            }
            _ => {}
        }
    }
    heads
}

/// In `src/lib.rs`: `output::render_error`, `cmd::list::run`, paths that start with a module.
fn root_references(text: &str, modules: &BTreeSet<String>) -> Vec<(String, usize)> {
    let code = code_only(text);
    let mut out = Vec::new();
    for (n, line) in code.lines().enumerate() {
        for (i, _) in line.match_indices("::") {
            let head = &line[..i];
            let name: String = head
                .chars()
                .rev()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            let before = head[..head.len() - name.len()].chars().next_back();
            if modules.contains(&name) && before != Some(':') {
                out.push((name, n + 1));
            }
        }
    }
    out
}

fn ident_at(text: &str) -> Option<String> {
    let name: String = text
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

/// The text with comments, string and char literals blanked out (newlines kept, so line
/// numbers stay right).
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if c == 'r'
            && matches!(next, Some('#' | '"'))
            && !chars[..i]
                .last()
                .is_some_and(|p| p.is_alphanumeric() || *p == '_')
        {
            // r"…", r#"…"#: ends at a quote followed by as many `#`.
            let hashes = chars[i + 1..].iter().take_while(|c| **c == '#').count();
            if chars.get(i + 1 + hashes) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            let close: Vec<char> = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            let mut j = i + 2 + hashes;
            while j < chars.len() && !chars[j..].starts_with(&close) {
                j += 1;
            }
            let end = (j + close.len()).min(chars.len());
            out.extend(chars[i..end].iter().map(|c| blank(*c)));
            i = end;
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < chars.len() {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
            out.push(' ');
            i += 1;
        } else if c == '\'' {
            // A char literal ('x', '\n', '"'), else a lifetime ('a), which stays.
            let len = match (next, chars.get(i + 2)) {
                (Some('\\'), _) => chars
                    .get(i + 3..)
                    .and_then(|rest| rest.iter().position(|c| *c == '\''))
                    .map(|p| p + 4),
                (Some(_), Some('\'')) => Some(3),
                _ => None,
            };
            match len {
                Some(len) => {
                    out.extend(std::iter::repeat_n(' ', len));
                    i += len;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// A set of modules that all reach each other, and one cycle through all of them.
struct Knot {
    members: Vec<String>,
    /// Starts and ends at the same module.
    cycle: Vec<String>,
}

/// The strongly connected components with more than one module (Tarjan's algorithm), each
/// with a closed walk through its members for the message.
fn cycles(graph: &Graph) -> Vec<Knot> {
    struct State<'g> {
        graph: &'g Graph,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        components: Vec<Vec<String>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        let graph = s.graph;
        for w in graph.get(v).into_iter().flat_map(|e| e.keys()) {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.on_stack.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.push(w.to_owned());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.components.push(component);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        components: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.components
        .into_iter()
        .map(|members| {
            let cycle = walk_through(graph, &members);
            Knot { members, cycle }
        })
        .collect()
}

/// A closed walk from the first member through every member of a component: the shortest
/// path (breadth first, inside the component) to each next member in turn, then back.
fn walk_through(graph: &Graph, members: &[String]) -> Vec<String> {
    let inside: BTreeSet<&str> = members.iter().map(String::as_str).collect();
    let path = |from: &str, to: &str| -> Vec<String> {
        let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([from]);
        while let Some(v) = queue.pop_front() {
            for w in graph.get(v).into_iter().flat_map(|e| e.keys()) {
                let w = w.as_str();
                if inside.contains(w) && w != from && !came_from.contains_key(w) {
                    came_from.insert(w, v);
                    if w == to {
                        let mut p = vec![to.to_owned()];
                        let mut at = to;
                        while let Some(prev) = came_from.get(at).filter(|p| **p != from) {
                            p.push((*prev).to_owned());
                            at = prev;
                        }
                        p.reverse();
                        return p;
                    }
                    queue.push_back(w);
                }
            }
        }
        Vec::new()
    };
    let mut walk = vec![members[0].clone()];
    for next in members[1..].iter().chain(std::iter::once(&members[0])) {
        let here = walk.last().cloned().unwrap_or_default();
        if walk.contains(next) && next != &members[0] {
            continue;
        }
        walk.extend(path(&here, next));
    }
    walk
}
