//! Rewrite databases (PyTensor's `pytensor/graph/rewriting/db.py`): named
//! rewriters with tags and positions, and queries that pick some of them
//! by tag (include, require, exclude) and build the pass that runs them.
//! A sequence database becomes passes in `(position, name)` order, an
//! equilibrium database one equilibrium over its node rewriters (with its
//! graph rewriters as global, final or cleanup passes), a walking database
//! one walk. Databases nest, and a query applies to the nested ones too.

use super::equilibrium::Equilibrium;
use super::rewriter::{GraphRewriter, NodeRewriter};
use super::sequence::Sequence;
use super::walk::{WalkOrder, Walking};
use crate::error::{Error, Result};
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, RwLock};

/// What a database entry holds.
#[derive(Clone)]
pub enum Entry {
    /// A node rewriter (in a sequence it runs as a walk, inputs first).
    Node(Arc<dyn NodeRewriter>),
    /// A graph pass.
    Graph(Arc<dyn GraphRewriter>),
    /// A nested database.
    Db(Arc<RewriteDb>),
}

/// The part a graph pass plays in an equilibrium database.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Role {
    /// Run at the start of each round.
    #[default]
    Global,
    /// Run at the end of each round (`final_rewriter=True`).
    Final,
    /// Run after every applied change (`cleanup=True`).
    Cleanup,
}

/// One registered rewriter.
#[derive(Clone)]
pub struct Registered {
    /// Its name in the database.
    pub name: String,
    /// The rewriter.
    pub entry: Entry,
    /// Its tags (the name and the database's name are tags too).
    pub tags: BTreeSet<String>,
    /// Its position in a sequence database.
    pub position: f64,
    /// Its part in an equilibrium database.
    pub role: Role,
}

/// How a database turns its selected entries into a pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DbKind {
    /// Passes in `(position, name)` order (`SequenceDB`).
    Sequence,
    /// One equilibrium (`EquilibriumDB`).
    Equilibrium,
    /// One walk in this order (`TopoDB`); sub-databases' rewriters join it.
    Walk(WalkOrder),
}

/// A database of rewriters. Its name is a tag of all its entries; a
/// database gets its name again when registered into another (as in
/// PyTensor, where `register(name, db)` renames `db`).
pub struct RewriteDb {
    name: RwLock<String>,
    kind: DbKind,
    entries: RwLock<Vec<Registered>>,
}

/// Which rewriters a query selects (`RewriteDatabaseQuery`).
#[derive(Clone, Debug, PartialEq)]
pub struct Query {
    /// Selected if tagged with any of these.
    pub include: Vec<String>,
    /// ... and with all of these.
    pub require: Vec<String>,
    /// ... and with none of these.
    pub exclude: Vec<String>,
    /// Sequence entries at this position or later are left out.
    pub position_cutoff: f64,
    /// Other queries for nested databases, by their name.
    pub subquery: HashMap<String, Query>,
}

impl Query {
    /// A query including these tags.
    pub fn including(tags: &[&str]) -> Query {
        Query {
            include: tags.iter().map(|t| (*t).to_owned()).collect(),
            require: Vec::new(),
            exclude: Vec::new(),
            position_cutoff: f64::INFINITY,
            subquery: HashMap::new(),
        }
    }

    /// This query with more included tags.
    pub fn with_include(mut self, tags: &[&str]) -> Query {
        self.include.extend(tags.iter().map(|t| (*t).to_owned()));
        self
    }

    /// This query with more required tags.
    pub fn with_require(mut self, tags: &[&str]) -> Query {
        self.require.extend(tags.iter().map(|t| (*t).to_owned()));
        self
    }

    /// This query with more excluded tags.
    pub fn with_exclude(mut self, tags: &[&str]) -> Query {
        self.exclude.extend(tags.iter().map(|t| (*t).to_owned()));
        self
    }

    fn selects(&self, r: &Registered, db_name: &str) -> bool {
        let has = |t: &String| t == db_name || r.tags.contains(t);
        self.include.iter().any(has)
            && self.require.iter().all(has)
            && !self.exclude.iter().any(has)
    }
}

impl RewriteDb {
    /// An empty database.
    pub fn new(name: impl Into<String>, kind: DbKind) -> Self {
        RewriteDb {
            name: RwLock::new(name.into()),
            kind,
            entries: RwLock::new(Vec::new()),
        }
    }

    /// Its name.
    pub fn name(&self) -> String {
        self.name.read().map(|n| n.clone()).unwrap_or_default()
    }

    /// Renames it.
    pub fn set_name(&self, name: &str) {
        if let Ok(mut n) = self.name.write() {
            *n = name.to_owned();
        }
    }

    /// Its kind.
    pub fn kind(&self) -> DbKind {
        self.kind
    }

    /// Registers `entry` as `name` with `tags` at `position` (sequences) in
    /// `role` (equilibria). A name already registered, or a tag equal to a
    /// registered name, is an error (as PyTensor's `ValueError`).
    pub fn register(
        &self,
        name: &str,
        entry: Entry,
        tags: &[&str],
        position: f64,
        role: Role,
    ) -> Result<()> {
        let db_name = self.name();
        let mut entries = self.write()?;
        if entries.iter().any(|r| r.name == name) {
            return Err(Error::Value(format!(
                "The name {name} is already registered in {db_name}"
            )));
        }
        if let Some(t) = tags.iter().find(|t| entries.iter().any(|r| r.name == **t)) {
            return Err(Error::Value(format!(
                "The tag {t} of {name} is the name of a rewriter registered in {db_name}"
            )));
        }
        if let Entry::Db(db) = &entry {
            db.set_name(name);
        }
        let mut all: BTreeSet<String> = tags.iter().map(|t| (*t).to_owned()).collect();
        all.insert(name.to_owned());
        entries.push(Registered {
            name: name.to_owned(),
            entry,
            tags: all,
            position,
            role,
        });
        Ok(())
    }

    /// Removes a registered entry; returns whether it was there.
    pub fn remove(&self, name: &str) -> Result<bool> {
        let mut entries = self.write()?;
        let before = entries.len();
        entries.retain(|r| r.name != name);
        Ok(entries.len() != before)
    }

    /// Adds tags to a registered entry.
    pub fn add_tags(&self, name: &str, tags: &[&str]) -> Result<()> {
        let mut entries = self.write()?;
        let r = entries
            .iter_mut()
            .find(|r| r.name == name)
            .ok_or_else(|| Error::Index(format!("{name} is not registered in {}", self.name())))?;
        r.tags.extend(tags.iter().map(|t| (*t).to_owned()));
        Ok(())
    }

    /// A copy of the entries.
    pub fn entries(&self) -> Result<Vec<Registered>> {
        Ok(self.read()?.clone())
    }

    /// The entry registered as `name`.
    pub fn get(&self, name: &str) -> Result<Registered> {
        self.read()?
            .iter()
            .find(|r| r.name == name)
            .cloned()
            .ok_or_else(|| Error::Index(format!("{name} is not registered in {}", self.name())))
    }

    /// The nested database registered as `name`.
    pub fn sub_db(&self, name: &str) -> Result<Arc<RewriteDb>> {
        match self.get(name)?.entry {
            Entry::Db(db) => Ok(db),
            _ => Err(Error::Type(format!(
                "{name} in {} is not a database",
                self.name()
            ))),
        }
    }

    fn read(&self) -> Result<std::sync::RwLockReadGuard<'_, Vec<Registered>>> {
        self.entries
            .read()
            .map_err(|_| Error::Value(format!("the database {} is poisoned", self.name())))
    }

    fn write(&self) -> Result<std::sync::RwLockWriteGuard<'_, Vec<Registered>>> {
        self.entries
            .write()
            .map_err(|_| Error::Value(format!("the database {} is poisoned", self.name())))
    }

    /// The pass that runs what `query` selects.
    pub fn query(&self, query: &Query) -> Result<Arc<dyn GraphRewriter>> {
        let name = self.name();
        let mut selected: Vec<Registered> = self
            .read()?
            .iter()
            .filter(|r| query.selects(r, &name))
            .cloned()
            .collect();
        Ok(match self.kind {
            DbKind::Sequence => {
                selected.retain(|r| r.position < query.position_cutoff);
                selected.sort_by(|a, b| {
                    a.position
                        .total_cmp(&b.position)
                        .then_with(|| a.name.cmp(&b.name))
                });
                let passes = selected
                    .iter()
                    .map(|r| Ok((r.name.clone(), pass_of(r, query)?)))
                    .collect::<Result<_>>()?;
                Arc::new(Sequence::named(name, passes))
            }
            DbKind::Equilibrium => self.equilibrium(&selected, query)?,
            DbKind::Walk(order) => {
                let rewriters = node_rewriters(&selected, query)?;
                Arc::new(Walking::new(name, rewriters, order))
            }
        })
    }

    fn equilibrium(
        &self,
        selected: &[Registered],
        query: &Query,
    ) -> Result<Arc<dyn GraphRewriter>> {
        let mut by_role: HashMap<Role, Vec<Arc<dyn GraphRewriter>>> = HashMap::new();
        for r in selected {
            if let Entry::Graph(p) = &r.entry {
                by_role.entry(r.role).or_default().push(p.clone());
            }
        }
        let mut take = |role| by_role.remove(&role).unwrap_or_default();
        Ok(Arc::new(
            Equilibrium::new(self.name(), node_rewriters(selected, query)?)
                .with_global(take(Role::Global))
                .with_final(take(Role::Final))
                .with_cleanup(take(Role::Cleanup)),
        ))
    }
}

/// A sequence entry as a pass: node rewriters walk inputs first.
fn pass_of(r: &Registered, query: &Query) -> Result<Arc<dyn GraphRewriter>> {
    Ok(match &r.entry {
        Entry::Graph(p) => p.clone(),
        Entry::Node(n) => Arc::new(Walking::new(
            r.name.clone(),
            vec![n.clone()],
            WalkOrder::InToOut,
        )),
        Entry::Db(db) => db.query(query.subquery.get(&db.name()).unwrap_or(query))?,
    })
}

/// The node rewriters of the selected entries, nested databases' included
/// (a nested database contributes what the query selects in it).
fn node_rewriters(selected: &[Registered], query: &Query) -> Result<Vec<Arc<dyn NodeRewriter>>> {
    let mut out = Vec::new();
    for r in selected {
        match &r.entry {
            Entry::Node(n) => out.push(n.clone()),
            Entry::Db(db) => {
                let q = query.subquery.get(&db.name()).unwrap_or(query);
                out.extend(db.query(q)?.node_rewriters());
            }
            Entry::Graph(_) => {}
        }
    }
    Ok(out)
}
