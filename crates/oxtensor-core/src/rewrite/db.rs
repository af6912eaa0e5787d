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

impl std::fmt::Debug for RewriteDb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RewriteDb({}, {:?})", self.name(), self.kind)
    }
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
    /// Passes of the caller's own, run at their positions among what a
    /// sequence database selects (`extra_rewrites`, `Mode.register`).
    pub extra: Vec<ExtraPass>,
}

/// A pass a query adds to a sequence database's selection.
#[derive(Clone)]
pub struct ExtraPass {
    /// Where it runs among the selected entries.
    pub position: f64,
    /// The pass.
    pub pass: Arc<dyn GraphRewriter>,
}

impl std::fmt::Debug for ExtraPass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({}, {})", self.pass.name(), self.position)
    }
}

/// The same pass at the same position.
impl PartialEq for ExtraPass {
    fn eq(&self, other: &Self) -> bool {
        self.position == other.position && Arc::ptr_eq(&self.pass, &other.pass)
    }
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
            extra: Vec::new(),
        }
    }

    /// This query with passes of the caller's own at these positions.
    pub fn with_extra(mut self, extra: impl IntoIterator<Item = ExtraPass>) -> Query {
        self.extra.extend(extra);
        self
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

    /// The pass that runs what `query` selects, with the query's extra
    /// passes when this is a sequence database.
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
                selected.extend(query.extra.iter().map(extra_entry));
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

/// An extra pass as a selected entry, named after the pass.
fn extra_entry(e: &ExtraPass) -> Registered {
    Registered {
        name: e.pass.name().to_owned(),
        entry: Entry::Graph(e.pass.clone()),
        tags: BTreeSet::new(),
        position: e.position,
        role: Role::Global,
    }
}

/// The query a nested database gets: its subquery, else `query` itself,
/// without the extra passes (they run once, at the top level).
fn nested_query(query: &Query, db: &RewriteDb) -> Query {
    let q = query.subquery.get(&db.name()).unwrap_or(query);
    Query {
        extra: Vec::new(),
        ..q.clone()
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
        Entry::Db(db) => db.query(&nested_query(query, db))?,
    })
}

/// The node rewriters of the selected entries, nested databases' included
/// (a nested database contributes what the query selects in it).
fn node_rewriters(selected: &[Registered], query: &Query) -> Result<Vec<Arc<dyn NodeRewriter>>> {
    let mut out = Vec::new();
    for r in selected {
        match &r.entry {
            Entry::Node(n) => out.push(n.clone()),
            Entry::Db(db) => out.extend(db.query(&nested_query(query, db))?.node_rewriters()),
            Entry::Graph(_) => {}
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::FunctionGraph;
    use crate::rewrite::run::RunContext;
    use std::sync::Mutex;

    type Log = Arc<Mutex<Vec<&'static str>>>;

    /// A pass that notes its name when it runs.
    struct Note(&'static str, Log);

    impl GraphRewriter for Note {
        fn name(&self) -> &str {
            self.0
        }
        fn apply(&self, _: &mut FunctionGraph, _: &mut RunContext) -> Result<bool> {
            self.1
                .lock()
                .map_err(|_| Error::Value("poisoned".into()))?
                .push(self.0);
            Ok(false)
        }
    }

    fn note(name: &'static str, log: &Log) -> Arc<dyn GraphRewriter> {
        Arc::new(Note(name, log.clone()))
    }

    /// `Mode.register((pass, 2.0))`: the extra pass runs between the
    /// entries at 1 and 3, once, though a nested database is queried too,
    /// and not past the query's cutoff.
    #[test]
    fn extra_passes_run_at_their_positions_once() -> Result<()> {
        let log = Log::default();
        let db = RewriteDb::new("outer", DbKind::Sequence);
        db.register(
            "a",
            Entry::Graph(note("a", &log)),
            &["t"],
            1.0,
            Role::Global,
        )?;
        let inner = Arc::new(RewriteDb::new("inner", DbKind::Sequence));
        inner.register(
            "c",
            Entry::Graph(note("c", &log)),
            &["t"],
            0.5,
            Role::Global,
        )?;
        db.register("inner", Entry::Db(inner), &["t"], 3.0, Role::Global)?;
        let extra = |name, position| ExtraPass {
            position,
            pass: note(name, &log),
        };
        let q = Query::including(&["t"]).with_extra([extra("x", 2.0), extra("late", 9.0)]);
        let q = Query {
            position_cutoff: 5.0,
            ..q
        };
        db.query(&q)?
            .apply(&mut FunctionGraph::default(), &mut RunContext::default())?;
        let seen = log.lock().map_err(|_| Error::Value("poisoned".into()))?;
        assert_eq!(*seen, ["a", "x", "c"]);
        Ok(())
    }
}
