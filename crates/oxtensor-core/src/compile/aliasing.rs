//! What a function may and may not overwrite (`pytensor/compile/aliasing.py`):
//! the [`Supervisor`] feature refuses a graph that destroys a protected
//! variable (an input the caller did not mark mutable) or any current
//! output, and [`add_supervisor_to_fgraph`] sets a function's graph up:
//! inplace ops only when accepted, a [`DestroyHandler`] when there are any.

use super::maker::FunctionInput;
use crate::error::{Error, Result};
use crate::graph::destroy::has_destroy_ops;
use crate::graph::{DestroyHandler, Feature, FunctionGraph, VarId};
use rustc_hash::FxHashSet;

/// Protects variables from destruction; asks the graph's
/// [`DestroyHandler`] on each validation (nothing to do without one).
#[derive(Clone, Debug, Default)]
pub struct Supervisor {
    protected: Vec<VarId>,
    /// The inputs the caller marked mutable: the only arguments whose own
    /// memory the program may write (`vm/destroy_grant.rs`). An input the
    /// caller's own graph destroys without it is overwritten in a copy.
    mutable: Vec<VarId>,
}

impl Supervisor {
    /// A supervisor of these variables (the graph's outputs are always
    /// protected too).
    pub fn new(protected: impl IntoIterator<Item = VarId>) -> Self {
        let mut list: Vec<VarId> = Vec::new();
        for v in protected {
            if !list.contains(&v) {
                list.push(v);
            }
        }
        Supervisor {
            protected: list,
            mutable: Vec::new(),
        }
    }

    /// This supervisor, knowing the inputs the caller marked mutable.
    pub fn with_mutable(mut self, mutable: impl IntoIterator<Item = VarId>) -> Self {
        self.mutable = mutable.into_iter().collect();
        self
    }

    /// The inputs the caller marked mutable.
    pub fn mutable(&self) -> &[VarId] {
        &self.mutable
    }

    /// The protected variables, as given.
    pub fn protected(&self) -> &[VarId] {
        &self.protected
    }
}

impl Feature for Supervisor {
    crate::graph::feature_identity!("Supervisor");

    fn on_attach(&mut self, fg: &FunctionGraph) -> Result<()> {
        crate::graph::attach_once::<Supervisor>(fg, "Supervisor is already attached")
    }

    /// One lookup per protected variable and output: a root walk and a
    /// hash probe each, whatever the size of the graph.
    fn on_validate(&mut self, fg: &FunctionGraph) -> Result<()> {
        let Some(dh) = fg.feature::<DestroyHandler>() else {
            return Ok(());
        };
        if !dh.any_destroyer() {
            return Ok(());
        }
        for &v in self.protected.iter().chain(fg.outputs()) {
            if let Some(&d) = dh.destroyers(v).first() {
                let g = fg.graph();
                return Err(Error::Inconsistency(format!(
                    "Trying to destroy a protected variable: {} (destroyed by {})",
                    g.describe_var(v),
                    g.describe_node(d)
                )));
            }
        }
        Ok(())
    }
}

/// What inplace rewrites must leave alone in `fg`: the variables of its
/// [`Supervisor`] (if any) and its outputs.
pub fn protected_vars(fg: &FunctionGraph) -> FxHashSet<VarId> {
    let mut out: FxHashSet<VarId> = fg.outputs().iter().copied().collect();
    if let Some(s) = fg.feature::<Supervisor>() {
        out.extend(s.protected().iter().copied());
    }
    out
}

/// Sets up a function's graph for inplace work (PyTensor's
/// `add_supervisor_to_fgraph`): refuses inplace ops unless
/// `accept_inplace`, attaches a [`DestroyHandler`] when the graph has any,
/// and a [`Supervisor`] of every input that is not `mutable`, except the
/// ones the caller's own graph destroys (it asked for that).
pub fn add_supervisor_to_fgraph(
    fg: &mut FunctionGraph,
    inputs: &[FunctionInput],
    accept_inplace: bool,
) -> Result<()> {
    if has_destroy_ops(fg) {
        if !accept_inplace {
            return Err(refuse_inplace(fg));
        }
        fg.attach_feature(Box::new(DestroyHandler::new()))?;
    }
    let dh = fg.feature::<DestroyHandler>();
    let protected: Vec<VarId> = inputs
        .iter()
        .filter(|i| !i.mutable && !dh.is_some_and(|dh| dh.has_destroyers(&[i.var])))
        .map(|i| i.var)
        .collect();
    let mutable = inputs.iter().filter(|i| i.mutable).map(|i| i.var);
    fg.attach_feature(Box::new(Supervisor::new(protected).with_mutable(mutable)))
}

fn refuse_inplace(fg: &FunctionGraph) -> Error {
    let g = fg.graph();
    let node = fg
        .apply_nodes()
        .find(|&n| !g.node(n).op.destroy_map().is_empty());
    Error::Type(format!(
        "Graph must not contain inplace operations: {}",
        node.map(|n| g.describe_node(n)).unwrap_or_default()
    ))
}
