//! `FunctionMaker`: from a graph and what the caller asked for (inputs,
//! outputs, updates, givens, the unused-input policy, a mode) to the
//! rewritten [`FunctionGraph`] a function runs, and with [`compile`] to
//! the linked [`Program`]. The caller's nodes are copied first, so
//! rewriting never changes them; the inputs stay the caller's own
//! variables (PyTensor's `copy_inputs_over`). Mirrors
//! `pytensor/compile/maker.py` and `rebuild.py`.

use super::aliasing::add_supervisor_to_fgraph;
use super::mode::Mode;
use crate::error::{Error, Result};
use crate::graph::clone::clone_with_givens;
use crate::graph::traversal::ancestors;
use crate::graph::{DestroyHandler, Feature, FunctionGraph, Graph, VarId};
use crate::rewrite::{rewrite_graph, RewriteProfile, RunContext};
use crate::vm::Program;
use std::collections::{HashMap, HashSet};

/// What to do with an input the outputs do not need (`on_unused_input`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OnUnused {
    /// `UnusedInputError`.
    #[default]
    Raise,
    /// A warning.
    Warn,
    /// Nothing.
    Ignore,
}

/// One input of a function (`In`).
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionInput {
    /// The variable (a free variable of the graph).
    pub var: VarId,
    /// Whether the function may overwrite the caller's value (`mutable`).
    pub mutable: bool,
    /// Whether outputs may alias it (`borrow`).
    pub borrow: bool,
    /// Whether the function supplies it itself (a shared variable's value).
    pub implicit: bool,
}

impl FunctionInput {
    /// An explicit input with PyTensor's defaults.
    pub fn new(var: VarId) -> Self {
        FunctionInput {
            var,
            mutable: false,
            borrow: false,
            implicit: false,
        }
    }
}

/// What a function computes.
#[derive(Clone, Debug, Default)]
pub struct FunctionSpec {
    /// Inputs: the explicit ones, then the implicit ones.
    pub inputs: Vec<FunctionInput>,
    /// Outputs, with whether each may alias storage (`Out(borrow=True)`).
    pub outputs: Vec<(VarId, bool)>,
    /// `(input position, expression)`: the input's next value.
    pub updates: Vec<(usize, VarId)>,
    /// Variables replaced before compiling.
    pub givens: Vec<(VarId, VarId)>,
    /// What to do with unused explicit inputs.
    pub on_unused_input: OnUnused,
    /// Whether the graph may already hold inplace ops.
    pub accept_inplace: bool,
}

/// A rewritten function graph: outputs first, then the update expressions.
pub struct Built {
    /// The graph to link.
    pub fgraph: FunctionGraph,
    /// Warnings for the caller (unused inputs, rewriters that failed).
    pub warnings: Vec<String>,
    /// The rewrite run's figures.
    pub profile: RewriteProfile,
}

/// A compiled function: its graph and the program that runs it.
pub struct Compiled {
    /// The rewritten graph.
    pub built: Built,
    /// The linked program (outputs, then updated values).
    pub program: Program,
}

/// Builds the rewritten graph of a function.
pub struct FunctionMaker {
    graph: Graph,
    spec: FunctionSpec,
    mode: Mode,
    features: Vec<Box<dyn Feature>>,
}

impl FunctionMaker {
    /// A maker over `graph` (taken over; the caller keeps its own copy).
    pub fn new(graph: Graph, spec: FunctionSpec, mode: Mode) -> Self {
        FunctionMaker {
            graph,
            spec,
            mode,
            features: Vec::new(),
        }
    }

    /// Attaches `feature` to the graph before it is rewritten (a host's
    /// mirror of the graph, or its bridge for rewriters it defines).
    pub fn with_feature(mut self, feature: Box<dyn Feature>) -> Self {
        self.features.push(feature);
        self
    }

    /// Copies, checks and rewrites the graph.
    pub fn build(mut self) -> Result<Built> {
        self.check_inputs()?;
        let mut warnings = Vec::new();
        let roots: Vec<VarId> = self
            .spec
            .outputs
            .iter()
            .map(|&(v, _)| v)
            .chain(self.spec.updates.iter().map(|&(_, e)| e))
            .collect();
        let givens: HashMap<VarId, VarId> = self.spec.givens.iter().copied().collect();
        let outs = clone_with_givens(&mut self.graph, &roots, &givens)?;
        self.check_unused(&outs, &mut warnings)?;
        let inputs = self.spec.inputs.iter().map(|i| i.var).collect();
        let mut fgraph = FunctionGraph::new(self.graph, inputs, outs)?;
        refuse_atomic_roots(&fgraph)?;
        for f in self.features {
            fgraph.attach_feature(f)?;
        }
        add_supervisor_to_fgraph(&mut fgraph, &self.spec.inputs, self.spec.accept_inplace)?;
        if fgraph.feature::<DestroyHandler>().is_some() {
            // The caller's own inplace ops: refused here, with the handler's
            // reason, rather than by the first rewrite that happens to validate.
            fgraph.validate()?;
        }
        // Nodes edited in place from the host since they were built
        // (`node.inputs[0] = v`) are refused before any rewrite or kernel,
        // which trust the types, sees them.
        crate::graph::check_graph_types(&fgraph)?;
        // DebugMode remembers each replacement, to check both sides per call.
        super::debug::attach_log(&mut fgraph, &self.mode)?;
        let mut run = RunContext::new(self.mode.settings.clone());
        if let Some(pass) = self.mode.rewriter()? {
            rewrite_graph(pass.as_ref(), &mut fgraph, &mut run)?;
        }
        super::output_copies::insert_output_copies(&mut fgraph, &self.spec)?;
        warnings.append(&mut run.warnings);
        Ok(Built {
            fgraph,
            warnings,
            profile: run.profile,
        })
    }

    fn check_inputs(&self) -> Result<()> {
        let mut seen = HashSet::new();
        for (i, inp) in self.spec.inputs.iter().enumerate() {
            let data = self.graph.try_var(inp.var)?;
            if data.is_constant() || data.owner().is_some() {
                return Err(Error::Type(format!(
                    "Input {i} ({}) of a function must be a free variable, not a constant or a \
                     node's output",
                    self.graph.describe_var(inp.var)
                )));
            }
            if !seen.insert(inp.var) {
                return Err(Error::Value(format!(
                    "Variable {} is used twice in inputs",
                    self.graph.describe_var(inp.var)
                )));
            }
            // A shared variable may be a key (`givens={a: a + 10}`): its
            // value is still read, by the replacement.
            if !inp.implicit && self.spec.givens.iter().any(|&(k, _)| k == inp.var) {
                return Err(Error::Runtime(format!(
                    "You are trying to replace variable '{}' through the `givens` parameter, but \
                     this variable is an input to your function. Replacing inputs is currently \
                     forbidden because it has no effect. One way to modify an input `x` to a \
                     function evaluating f(x) is to define a new input `y` and use \
                     `givens={{x: g(y)}}`.",
                    self.graph.describe_var(inp.var)
                )));
            }
        }
        Ok(())
    }

    /// Applies the unused-input policy to the explicit inputs.
    fn check_unused(&self, outs: &[VarId], warnings: &mut Vec<String>) -> Result<()> {
        let needed: HashSet<VarId> = ancestors(&self.graph, outs, &[]).into_iter().collect();
        for (i, inp) in self.spec.inputs.iter().enumerate() {
            if inp.implicit || needed.contains(&inp.var) {
                continue;
            }
            let msg = format!(
                "oxtensor.function was asked to create a function computing outputs given certain \
                 inputs, but the provided input variable at index {i} is not part of the \
                 computational graph needed to compute the outputs: {}.\nTo make this error into a \
                 warning, you can pass the parameter on_unused_input='warn' to oxtensor.function. \
                 To disable it completely, use on_unused_input='ignore'.",
                self.graph.describe_var(inp.var)
            );
            match self.spec.on_unused_input {
                OnUnused::Raise => return Err(Error::UnusedInput(msg)),
                OnUnused::Warn => warnings.push(msg),
                OnUnused::Ignore => {}
            }
        }
        Ok(())
    }
}

/// A graph may hold an atomic free variable (a `NominalVariable`) without
/// declaring it, but a function has no value to run it with.
fn refuse_atomic_roots(fgraph: &FunctionGraph) -> Result<()> {
    let g = fgraph.graph();
    let missing = fgraph.variables().find(|&v| {
        let d = g.var(v);
        d.atomic && d.owner().is_none() && !fgraph.is_input(v)
    });
    match missing {
        Some(v) => Err(Error::MissingInput(format!(
            "{} is a nominal variable the outputs need: give it as an input of the function",
            g.describe_var(v)
        ))),
        None => Ok(()),
    }
}

/// Builds and links a function whose ops are all native (a Rust program's).
pub fn compile(graph: Graph, spec: FunctionSpec, mode: &Mode) -> Result<Compiled> {
    let link = mode.link.clone();
    // DebugMode compares every call with the graph compiled in FAST_COMPILE.
    let reference = match &link.checker {
        Some(c) if c.wants_reference() => {
            Some(compile(graph.clone(), spec.clone(), &Mode::fast_compile())?.program)
        }
        _ => None,
    };
    let mut built = FunctionMaker::new(graph, spec, mode.clone()).build()?;
    let mut program = Program::link(&built.fgraph, HashMap::new(), &link)?;
    if let Some(r) = reference {
        program.set_reference(std::sync::Arc::new(r));
        // DebugMode's `BadOptimization` check; without it, every other check.
        match super::debug::link_witness(&built.fgraph, |_| Ok(HashMap::new())) {
            Ok(Some(w)) => program.set_witness(w),
            Ok(None) => {}
            Err(e) => built.warnings.push(format!(
                "DebugMode cannot check this function's rewrites (BadOptimization): {e}"
            )),
        }
    }
    Ok(Compiled { built, program })
}
