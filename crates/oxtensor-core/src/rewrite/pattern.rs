//! Pattern rewriters (PyTensor's `PatternNodeRewriter` and its tuple
//! pattern language): an input pattern (an op applied to sub-patterns,
//! named variables that must bind consistently, constants compared by
//! value) is matched at a node, retrying the inputs of commutative ops in
//! every order, and an output template is built from the bindings. A head
//! may also be a test of the node's op that binds the op's parameters
//! (PyTensor's `OpPattern`); the core carries those bindings, opaque, to
//! the later tests and to the output builder.

use super::rewriter::{NodeRewriter, Rewrite, Track, Tracks};
use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId, Value, VarId};
use crate::ops::elemwise::Elemwise;
use crate::ops::{known, ops_equal, OpRef};
use crate::scalar::ScalarOp;
use crate::tensor::{Scalar, Tensor};
use crate::value::HostValue;
use std::any::Any;
use std::collections::HashMap;
use std::sync::Arc;

/// An op parameter bound by a head test, opaque to the core.
pub type Param = Arc<dyn Any + Send + Sync>;

/// The op parameters bound so far, by name.
pub type Params = HashMap<String, Param>;

/// Tests the op of a node against a head that is not one op (PyTensor's
/// `OpPattern`): it reads the bindings so far and may add to them.
pub type OpTest =
    Arc<dyn Fn(&mut FunctionGraph, NodeId, &mut Params) -> Result<bool> + Send + Sync>;

/// A test a bound variable must pass (`{"pattern": name, "constraint": f}`).
pub type Constraint = Arc<dyn Fn(&mut FunctionGraph, VarId) -> Result<bool> + Send + Sync>;

/// Builds an output from the bindings (a callable `out_pattern`).
pub type Builder = Arc<
    dyn Fn(&mut FunctionGraph, NodeId, &HashMap<String, VarId>, &Params) -> Result<Option<VarId>>
        + Send
        + Sync,
>;

/// What the op of a matched node must be.
#[derive(Clone)]
pub enum Head {
    /// An op equal to this one.
    Op(OpRef),
    /// An op of class `class` (what the rewriter tracks) passing `test`.
    Test {
        /// The class name, as in [`crate::ops::Op::class_path`].
        class: String,
        /// The test, which may bind the op's parameters.
        test: OpTest,
    },
}

impl From<OpRef> for Head {
    fn from(op: OpRef) -> Self {
        Head::Op(op)
    }
}

/// What an input pattern matches.
#[derive(Clone)]
pub enum Pattern {
    /// Any variable, bound to `name` (the same name must bind the same
    /// variable, or an equal constant), passing `constraint` if any.
    Var {
        /// The binding's name.
        name: String,
        /// An extra test on the first binding.
        constraint: Option<Constraint>,
    },
    /// A constant whose values equal these (broadcasting, as `np.array_equiv`).
    Const(Tensor),
    /// A constant holding a host value equal to this one.
    HostConst(Arc<dyn HostValue>),
    /// A node whose op fits `op` on inputs matching `args`; `rest`
    /// binds the inputs past `args` (PyTensor's `Asterisk`).
    Apply {
        /// What the node's op must be.
        op: Head,
        /// Its inputs' patterns.
        args: Vec<Pattern>,
        /// A name for the remaining inputs, if any.
        rest: Option<String>,
    },
}

/// What an output template builds.
#[derive(Clone)]
pub enum Template {
    /// The variable bound to this name.
    Var(String),
    /// A constant.
    Const(Tensor),
    /// `op` applied to the templates' results (a rest binding expands to its inputs).
    Apply(OpRef, Vec<Template>),
    /// A host function of the bindings.
    Build(Builder),
}

/// Bindings made while matching: single variables and rest lists.
#[derive(Clone, Default)]
struct Bindings {
    vars: HashMap<String, VarId>,
    rests: HashMap<String, Vec<VarId>>,
    params: Params,
}

/// The pattern rewriter.
pub struct PatternRewriter {
    name: String,
    pattern: Pattern,
    template: Template,
    allow_multiple_clients: bool,
    allow_cast: bool,
    tracks: Tracks,
}

impl PatternRewriter {
    /// `in_pattern -> out_pattern`; it tracks the pattern's head op.
    pub fn new(name: impl Into<String>, pattern: Pattern, template: Template) -> Self {
        let tracks = match &pattern {
            Pattern::Apply {
                op: Head::Op(op), ..
            } => Tracks::Some(vec![Track::Op(op.clone())]),
            Pattern::Apply {
                op: Head::Test { class, .. },
                ..
            } => Tracks::Some(vec![Track::Class(class.clone())]),
            _ => Tracks::All,
        };
        PatternRewriter {
            name: name.into(),
            pattern,
            template,
            allow_multiple_clients: false,
            allow_cast: true,
            tracks,
        }
    }

    /// Whether intermediate variables may have other readers.
    pub fn allow_multiple_clients(mut self, allow: bool) -> Self {
        self.allow_multiple_clients = allow;
        self
    }

    /// Whether a result of another dtype may be cast to the old one's.
    pub fn allow_cast(mut self, allow: bool) -> Self {
        self.allow_cast = allow;
        self
    }
}

impl NodeRewriter for PatternRewriter {
    crate::rewriter_identity!();

    fn transform(&self, fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
        let n = fg.graph().node(node);
        let [old] = n.outputs[..] else {
            return Ok(None); // only single-output nodes are rewritten
        };
        let Some(found) = self.solve(fg, &[(&self.pattern, old, true)], &Bindings::default())?
        else {
            return Ok(None);
        };
        let Some(new) = build(fg, node, &self.template, &found)? else {
            return Ok(None);
        };
        let (t_old, t_new) = (
            fg.graph().var(old).ty.clone(),
            fg.graph().var(new).ty.clone(),
        );
        if t_old.is_super(&t_new) {
            return Ok(Some(Rewrite::one(new)));
        }
        match (t_old.as_tensor(), t_new.as_tensor()) {
            (Some(a), Some(b)) if self.allow_cast && a.dtype != b.dtype => {
                let cast = crate::build::cast(fg.graph_mut(), new, a.dtype)?;
                let fits = fg.graph().var(old).ty.is_super(&fg.graph().var(cast).ty);
                Ok(fits.then(|| Rewrite::one(cast)))
            }
            _ => Ok(None),
        }
    }
}

/// One thing left to match: a pattern, the variable, whether it is the
/// node's own output (which may have any number of readers).
type Goal<'p> = (&'p Pattern, VarId, bool);

impl PatternRewriter {
    /// Matches the goals in order with backtracking: a commutative node
    /// tries each order of its inputs, and a later goal's failure retries
    /// an earlier node's next order. The bindings of the first full match.
    fn solve(
        &self,
        fg: &mut FunctionGraph,
        goals: &[Goal<'_>],
        found: &Bindings,
    ) -> Result<Option<Bindings>> {
        let Some(((p, var, root), rest)) = goals.split_first() else {
            return Ok(Some(found.clone()));
        };
        match p {
            Pattern::Var { name, constraint } => {
                let mut next = found.clone();
                if !bind(fg, name, constraint, *var, &mut next)? {
                    return Ok(None);
                }
                self.solve(fg, rest, &next)
            }
            Pattern::Const(c) => {
                if !constant_of(fg, *var).is_some_and(|t| array_equiv(&t, c)) {
                    return Ok(None);
                }
                self.solve(fg, rest, found)
            }
            Pattern::HostConst(h) => {
                let same = match fg.graph().var(*var).constant().map(|c| &c.value) {
                    Some(Value::Host(v)) => h.host_eq(v.as_ref()),
                    _ => false,
                };
                if !same {
                    return Ok(None);
                }
                self.solve(fg, rest, found)
            }
            Pattern::Apply {
                op,
                args,
                rest: rest_name,
            } => {
                let Some((node, inputs)) =
                    self.node_inputs(fg, *var, *root, args.len(), rest_name.is_some())
                else {
                    return Ok(None);
                };
                let mut found = found.clone();
                if !head_fits(fg, op, node, &mut found.params)? {
                    return Ok(None);
                }
                for order in orders(op, inputs.len()) {
                    let mut goals: Vec<Goal<'_>> = args
                        .iter()
                        .zip(&order)
                        .map(|(a, &i)| (a, inputs[i], false))
                        .collect();
                    goals.extend_from_slice(rest);
                    let mut next = found.clone();
                    if let Some(name) = rest_name {
                        let extra = order[args.len()..].iter().map(|&i| inputs[i]).collect();
                        next.rests.insert(name.clone(), extra);
                    }
                    if let Some(done) = self.solve(fg, &goals, &next)? {
                        return Ok(Some(done));
                    }
                }
                Ok(None)
            }
        }
    }

    /// `var`'s node and its inputs when it has a fitting number of inputs
    /// and (unless allowed, or it is the root) `var` has no other reader.
    fn node_inputs(
        &self,
        fg: &FunctionGraph,
        var: VarId,
        root: bool,
        n_args: usize,
        rest: bool,
    ) -> Option<(NodeId, Vec<VarId>)> {
        let node = fg.graph().var(var).owner()?;
        if !root && !self.allow_multiple_clients && fg.clients(var).len() > 1 {
            return None;
        }
        let n = fg.graph().node(node);
        let fits = if rest {
            n.inputs.len() >= n_args
        } else {
            n.inputs.len() == n_args
        };
        fits.then(|| (node, n.inputs.clone()))
    }
}

/// Whether `node`'s op fits the head (a test may bind parameters).
fn head_fits(
    fg: &mut FunctionGraph,
    head: &Head,
    node: NodeId,
    params: &mut Params,
) -> Result<bool> {
    match head {
        Head::Op(op) => Ok(ops_equal(&fg.graph().node(node).op, op)),
        Head::Test { test, .. } => test(fg, node, params),
    }
}

/// The input orders a node matched by `head` is tried in.
fn orders(head: &Head, n: usize) -> Vec<Vec<usize>> {
    if matches!(head, Head::Op(op) if commutative(op)) {
        permutations(n)
    } else {
        vec![(0..n).collect()]
    }
}

/// Binds `name` to `var`, or checks it binds the same (or an equal constant).
fn bind(
    fg: &mut FunctionGraph,
    name: &str,
    constraint: &Option<Constraint>,
    var: VarId,
    found: &mut Bindings,
) -> Result<bool> {
    if let Some(&prev) = found.vars.get(name) {
        if prev == var {
            return Ok(true);
        }
        return Ok(match (constant_of(fg, prev), constant_of(fg, var)) {
            (Some(a), Some(b)) => a.same_values(&b),
            _ => false,
        });
    }
    if let Some(test) = constraint {
        if !test(fg, var)? {
            return Ok(false);
        }
    }
    found.vars.insert(name.to_owned(), var);
    Ok(true)
}

/// The constant `v` holds, seen through the `DimShuffle`s that broadcast
/// it (`x ** 2` reads `ExpandDims(2)`; broadcasting keeps the values).
fn constant_of(fg: &FunctionGraph, v: VarId) -> Option<Tensor> {
    let g = fg.graph();
    let mut cur = v;
    loop {
        if let Some(c) = g.var(cur).constant() {
            return match &c.value {
                Value::Tensor(t) => Some(t.clone()),
                Value::Host(_) => None,
            };
        }
        let n = g.node(g.var(cur).owner()?);
        if !n.op.as_any().is::<crate::ops::dimshuffle::DimShuffle>() {
            return None;
        }
        cur = n.inputs[0];
    }
}

/// `np.array_equiv`: the shapes broadcast to each other and the values agree.
fn array_equiv(a: &Tensor, b: &Tensor) -> bool {
    let (sa, sb) = (a.shape(), b.shape());
    let n = sa.len().max(sb.len());
    let dim = |s: &[usize], d: usize| {
        let k = n - d;
        if k > s.len() {
            1
        } else {
            s[s.len() - k]
        }
    };
    let shape: Option<Vec<usize>> = (0..n)
        .map(|d| match (dim(sa, d), dim(sb, d)) {
            (x, y) if x == y => Some(x),
            (1, y) => Some(y),
            (x, 1) => Some(x),
            _ => None,
        })
        .collect();
    let Some(shape) = shape else { return false };
    let total: usize = shape.iter().product();
    let at = |t: &Tensor, flat: usize| -> Scalar {
        // Index into `t` by broadcasting the flat C-order position.
        let s = t.shape();
        let (mut rest, mut idx, mut stride) = (flat, 0usize, 1usize);
        for d in (0..n).rev() {
            let coord = rest % shape[d].max(1);
            rest /= shape[d].max(1);
            let k = n - d;
            if k <= s.len() {
                let len = s[s.len() - k];
                idx += if len == 1 { 0 } else { coord * stride };
                stride *= len;
            }
        }
        t.get(idx)
    };
    (0..total).all(|i| same_number(at(a, i), at(b, i)))
}

/// Equal numbers whatever their dtypes (`2 == 2.0`), NaN equal to NaN.
fn same_number(a: Scalar, b: Scalar) -> bool {
    let parts = |s: Scalar| match s {
        Scalar::Bool(b) => (b as u8 as f64, 0.0),
        Scalar::Int(x) => (x as f64, 0.0),
        Scalar::UInt(x) => (x as f64, 0.0),
        Scalar::Float(x, _) => (x, 0.0),
        Scalar::Complex(re, im, _) => (re, im),
    };
    let eq = |x: f64, y: f64| x == y || (x.is_nan() && y.is_nan());
    let ((ar, ai), (br, bi)) = (parts(a), parts(b));
    eq(ar, br) && eq(ai, bi)
}

fn commutative(op: &OpRef) -> bool {
    op.as_any()
        .downcast_ref::<Elemwise>()
        .is_some_and(|e| matches!(e.scalar_op, ScalarOp::Kind(k) if k.commutative()))
}

/// Every order of `0..n` (commutative ops have few inputs; past six the
/// identity order alone is tried, bounding the search).
fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n > 6 {
        return vec![(0..n).collect()];
    }
    let mut out: Vec<Vec<usize>> = vec![Vec::new()];
    for _ in 0..n {
        let mut next = Vec::with_capacity(out.len() * n);
        for p in &out {
            for i in (0..n).filter(|i| !p.contains(i)) {
                let mut q = p.clone();
                q.push(i);
                next.push(q);
            }
        }
        out = next;
    }
    out
}

/// Builds `t` from the bindings; `None` when a host builder declines.
fn build(
    fg: &mut FunctionGraph,
    node: NodeId,
    t: &Template,
    found: &Bindings,
) -> Result<Option<VarId>> {
    Ok(Some(match t {
        Template::Var(name) => match found.vars.get(name) {
            Some(&v) => v,
            None => return Ok(None),
        },
        Template::Const(c) => fg.graph_mut().tensor_constant(c.clone()),
        Template::Build(f) => return f(fg, node, &found.vars, &found.params),
        Template::Apply(op, args) => {
            let mut ins = Vec::with_capacity(args.len());
            for a in args {
                if let Template::Var(name) = a {
                    if let Some(rest) = found.rests.get(name) {
                        ins.extend_from_slice(rest);
                        continue;
                    }
                }
                match build(fg, node, a, found)? {
                    Some(v) => ins.push(v),
                    None => return Ok(None),
                }
            }
            known::apply_out(fg.graph_mut(), op.clone(), &ins)?
        }
    }))
}

#[cfg(test)]
#[path = "pattern_tests.rs"]
mod tests;
