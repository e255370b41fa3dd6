//! Which organization, repository or enterprise a request addresses, and whether the
//! simulated GitHub knows it.

use std::collections::{BTreeSet, HashMap};

use crate::world::{Scope, World};

/// The three levels runners register at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Level {
    Org,
    Repo,
    Enterprise,
}

/// The scope named by a request path (`{org}`, `{owner}/{repo}` or `{enterprise}`), compared
/// case-insensitively as GitHub does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ScopePath {
    pub(crate) level: Level,
    /// Lower-cased path segments: `[org]`, `[owner, repo]` or `[enterprise]`.
    key: Vec<String>,
}

impl ScopePath {
    /// Reads the scope from the route's path parameters.
    pub(crate) fn from_params(params: &HashMap<String, String>) -> Option<ScopePath> {
        let lower = |k: &str| params.get(k).map(|v| v.to_ascii_lowercase());
        if let Some(org) = lower("org") {
            Some(ScopePath {
                level: Level::Org,
                key: vec![org],
            })
        } else if let (Some(owner), Some(repo)) = (lower("owner"), lower("repo")) {
            Some(ScopePath {
                level: Level::Repo,
                key: vec![owner, repo],
            })
        } else {
            lower("enterprise").map(|e| ScopePath {
                level: Level::Enterprise,
                key: vec![e],
            })
        }
    }

    /// The owning org (lower-cased) of an org or repository scope.
    pub(crate) fn owner(&self) -> Option<&String> {
        match self.level {
            Level::Org | Level::Repo => self.key.first(),
            Level::Enterprise => None,
        }
    }

    /// Whether a registration under `scope` belongs to this path's scope.
    pub(crate) fn holds(&self, scope: &Scope) -> bool {
        // `key_of` without its allocations (the key is lower-cased): every list page asks this
        // of every registration.
        let (level, parts): (Level, &[&str]) = match scope {
            Scope::Org(o) => (Level::Org, &[o.as_str()]),
            Scope::Repo(o, r) => (Level::Repo, &[o.as_str(), r.as_str()]),
            Scope::Enterprise(e) => (Level::Enterprise, &[e.as_str()]),
        };
        level == self.level
            && parts.len() == self.key.len()
            && parts
                .iter()
                .zip(&self.key)
                .all(|(p, k)| p.eq_ignore_ascii_case(k))
    }
}

fn key_of(scope: &Scope) -> (Level, Vec<String>) {
    match scope {
        Scope::Org(o) => (Level::Org, vec![o.to_ascii_lowercase()]),
        Scope::Repo(o, r) => (
            Level::Repo,
            vec![o.to_ascii_lowercase(), r.to_ascii_lowercase()],
        ),
        Scope::Enterprise(e) => (Level::Enterprise, vec![e.to_ascii_lowercase()]),
    }
}

/// Scopes seen under registrations so far (lower-cased).
#[derive(Debug, Default)]
pub(crate) struct Known(BTreeSet<(Level, Vec<String>)>);

impl Known {
    /// Whether the simulated GitHub has this org, repository or enterprise.
    pub(crate) fn knows(&mut self, world: &World, path: &ScopePath) -> bool {
        let org = world.options.org.to_ascii_lowercase();
        let owned_by_org = match path.level {
            Level::Org | Level::Repo => path.key.first() == Some(&org),
            Level::Enterprise => false,
        };
        if owned_by_org || self.0.contains(&(path.level, path.key.clone())) {
            return true;
        }
        self.learn(world);
        self.0.contains(&(path.level, path.key.clone()))
    }

    /// Remembers every scope registrations live under now, so that a scope stays known after
    /// its last runner has been removed.
    pub(crate) fn learn(&mut self, world: &World) {
        for reg in world.registrations.values() {
            self.0.insert(key_of(&reg.scope));
        }
    }
}
