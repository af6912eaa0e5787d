//! `Composite`: a scalar op made of a scalar graph, one or more outputs
//! computed from its inputs `i0, i1, ...` by built-in scalar ops and
//! inlined constants. Elementwise fusion builds `Elemwise(Composite)`; the
//! fused block kernel (`kernels/fused/`) runs it. Held as a flat program
//! (nodes in dependency order, operands by position), which is also its
//! identity: two composites are equal when their programs are. Mirrors
//! `Composite` in `pytensor/scalar/basic.py`; the graph views are in
//! `composite_graph.rs`, the `str` in `composite_str.rs`.

use super::{ScalarKind, ScalarOp};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use smallvec::SmallVec;
use std::fmt;
use std::hash::{Hash, Hasher};

/// Where an inner node reads a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    /// The composite's input at this position (`i0`, `i1`, ...).
    Input(usize),
    /// The result of the inner node at this position.
    Node(usize),
    /// The inlined constant at this position.
    Const(usize),
}

/// One node of the inner graph: a built-in scalar op (never a composite:
/// nested composites are inlined) applied to earlier operands.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct InnerNode {
    /// The operation (a kind or a cast).
    pub op: ScalarOp,
    /// Its operands, each an input, a constant or an earlier node.
    pub args: SmallVec<[Operand; 3]>,
    /// Its output dtype.
    pub dtype: DType,
}

/// A scalar op computing several scalar expressions of its inputs at once.
#[derive(Clone)]
pub struct Composite {
    inputs: Vec<DType>,
    nodes: Vec<InnerNode>,
    /// The node computing each output; distinct nodes (a repeated output
    /// or one that is an input or a constant is an `identity` node).
    outputs: Vec<usize>,
    /// The inlined constants, 0-d tensors.
    consts: Vec<Tensor>,
    /// The `str`, made once (it is what `dprint` shows).
    name: String,
}

impl Composite {
    /// Starts building a composite with inputs of these dtypes.
    pub fn builder(inputs: &[DType]) -> CompositeBuilder {
        CompositeBuilder {
            inputs: inputs.to_vec(),
            nodes: Vec::new(),
            consts: Vec::new(),
        }
    }

    /// The input dtypes.
    pub fn input_dtypes(&self) -> &[DType] {
        &self.inputs
    }

    /// Number of inputs.
    pub fn nin(&self) -> usize {
        self.inputs.len()
    }

    /// Number of outputs.
    pub fn nout(&self) -> usize {
        self.outputs.len()
    }

    /// The inner nodes, in dependency order.
    pub fn nodes(&self) -> &[InnerNode] {
        &self.nodes
    }

    /// The node computing each output.
    pub fn outputs(&self) -> &[usize] {
        &self.outputs
    }

    /// The inlined constants (0-d tensors).
    pub fn consts(&self) -> &[Tensor] {
        &self.consts
    }

    /// The output dtypes.
    pub fn output_dtypes(&self) -> SmallVec<[DType; 2]> {
        self.outputs.iter().map(|&o| self.nodes[o].dtype).collect()
    }

    /// The dtype an operand holds.
    pub fn dtype_of(&self, a: Operand) -> DType {
        operand_dtype(&self.inputs, &self.nodes, &self.consts, a)
    }

    /// PyTensor's `str`: `Composite{((i0 + i1) * i2)}`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The output dtypes for inputs of `dtypes`, which must be the
    /// composite's own (its inner graph is typed by them).
    pub fn output_dtypes_for(&self, dtypes: &[DType]) -> Result<SmallVec<[DType; 2]>> {
        if dtypes != self.inputs.as_slice() {
            let names = |ds: &[DType]| -> String {
                let v: Vec<&str> = ds.iter().map(|d| d.name()).collect();
                format!("({})", v.join(", "))
            };
            return Err(Error::Type(format!(
                "{} expects inputs of dtypes {}, got {}",
                self.name,
                names(&self.inputs),
                names(dtypes)
            )));
        }
        Ok(self.output_dtypes())
    }

    /// The same program keeping only `outputs` (positions of this one's)
    /// and the inputs they read (`inputs`, the kept positions in order).
    pub fn restricted(&self, outputs: &[usize]) -> Result<(Composite, Vec<usize>)> {
        let mut used = vec![false; self.nodes.len()];
        let mut read = vec![false; self.inputs.len()];
        let mut stack: Vec<usize> = outputs.iter().map(|&o| self.outputs[o]).collect();
        while let Some(j) = stack.pop() {
            if std::mem::replace(&mut used[j], true) {
                continue;
            }
            for a in &self.nodes[j].args {
                match *a {
                    Operand::Node(k) => stack.push(k),
                    Operand::Input(i) => read[i] = true,
                    Operand::Const(_) => {}
                }
            }
        }
        let kept: Vec<usize> = (0..self.inputs.len()).filter(|&i| read[i]).collect();
        let dtypes: Vec<DType> = kept.iter().map(|&i| self.inputs[i]).collect();
        let mut b = Composite::builder(&dtypes);
        let args: Vec<Operand> = (0..self.inputs.len())
            .map(|i| Operand::Input(kept.iter().position(|&k| k == i).unwrap_or(0)))
            .collect();
        let outs = b.inline(self, &args)?;
        let picked: Vec<Operand> = outputs.iter().map(|&o| outs[o]).collect();
        Ok((b.finish(&picked)?, kept))
    }
}

fn operand_dtype(inputs: &[DType], nodes: &[InnerNode], consts: &[Tensor], a: Operand) -> DType {
    match a {
        Operand::Input(i) => inputs[i],
        Operand::Node(j) => nodes[j].dtype,
        Operand::Const(c) => consts[c].dtype(),
    }
}

/// Builds a [`Composite`] node by node.
pub struct CompositeBuilder {
    inputs: Vec<DType>,
    nodes: Vec<InnerNode>,
    consts: Vec<Tensor>,
}

impl CompositeBuilder {
    /// The dtype an operand holds.
    pub fn dtype_of(&self, a: Operand) -> DType {
        operand_dtype(&self.inputs, &self.nodes, &self.consts, a)
    }

    /// Adds a 0-d constant (one of equal dtype and bits is reused).
    pub fn constant(&mut self, value: Tensor) -> Result<Operand> {
        if value.ndim() != 0 {
            return Err(Error::Value(format!(
                "a Composite constant must be 0-d, got shape {:?}",
                value.shape()
            )));
        }
        // 0-d constants: their bytes always fit.
        let bytes = |t: &Tensor| t.to_c_bytes().ok();
        let same = |c: &Tensor| c.dtype() == value.dtype() && bytes(c) == bytes(&value);
        if let Some(k) = self.consts.iter().position(same) {
            return Ok(Operand::Const(k));
        }
        self.consts.push(value);
        Ok(Operand::Const(self.consts.len() - 1))
    }

    /// Adds `op(args)`; a composite `op` is inlined (use
    /// [`CompositeBuilder::inline`] for all its outputs).
    pub fn push(&mut self, op: ScalarOp, args: &[Operand]) -> Result<Operand> {
        if let ScalarOp::Composite(c) = &op {
            return self.inline(c, args)?.first().copied().ok_or_else(|| {
                Error::Value("a Composite without outputs cannot be inlined".into())
            });
        }
        if let Some(bad) = args.iter().find(|a| !self.exists(**a)) {
            return Err(Error::Index(format!(
                "operand {bad:?} of {op} is not defined"
            )));
        }
        let dtypes: SmallVec<[DType; 4]> = args.iter().map(|&a| self.dtype_of(a)).collect();
        // A loop on other dtypes than its own is its rebuilt copy, so every
        // inner node's op is typed by its operands.
        let op = match op {
            ScalarOp::Loop(l) => {
                let rebuilt = match l.for_dtypes(&dtypes)? {
                    std::borrow::Cow::Owned(new) => Some(new),
                    std::borrow::Cow::Borrowed(_) => None,
                };
                ScalarOp::Loop(rebuilt.map_or(l, std::sync::Arc::new))
            }
            other => other,
        };
        let dtype = op.output_dtype(&dtypes)?;
        self.nodes.push(InnerNode {
            op,
            args: args.into(),
            dtype,
        });
        Ok(Operand::Node(self.nodes.len() - 1))
    }

    /// Adds `c`'s inner graph reading `args`; returns its outputs.
    pub fn inline(&mut self, c: &Composite, args: &[Operand]) -> Result<Vec<Operand>> {
        if args.len() != c.nin() {
            return Err(Error::Type(format!(
                "Wrong number of inputs for {}.make_node (got {}, expected {})",
                c.name,
                args.len(),
                c.nin()
            )));
        }
        let consts: Vec<Operand> = c
            .consts
            .iter()
            .map(|t| self.constant(t.clone()))
            .collect::<Result<_>>()?;
        let mut made: Vec<Operand> = Vec::with_capacity(c.nodes.len());
        for n in &c.nodes {
            let mapped: SmallVec<[Operand; 3]> = n
                .args
                .iter()
                .map(|&a| match a {
                    Operand::Input(i) => args[i],
                    Operand::Node(j) => made[j],
                    Operand::Const(k) => consts[k],
                })
                .collect();
            made.push(self.push(n.op.clone(), &mapped)?);
        }
        Ok(c.outputs.iter().map(|&o| made[o]).collect())
    }

    fn exists(&self, a: Operand) -> bool {
        match a {
            Operand::Input(i) => i < self.inputs.len(),
            Operand::Node(j) => j < self.nodes.len(),
            Operand::Const(k) => k < self.consts.len(),
        }
    }

    /// The composite computing `outputs`. An output that is an input, a
    /// constant or an earlier output gets an `identity` node of its own.
    pub fn finish(mut self, outputs: &[Operand]) -> Result<Composite> {
        if outputs.is_empty() {
            return Err(Error::Value("a Composite needs at least one output".into()));
        }
        let mut outs = Vec::with_capacity(outputs.len());
        for &o in outputs {
            let node = match o {
                Operand::Node(j) if !outs.contains(&j) && j < self.nodes.len() => o,
                _ => self.push(ScalarKind::Identity.into(), &[o])?,
            };
            if let Operand::Node(j) = node {
                outs.push(j);
            }
        }
        let mut c = Composite {
            inputs: self.inputs,
            nodes: self.nodes,
            outputs: outs,
            consts: self.consts,
            name: String::new(),
        };
        c.name = super::composite_str::render(&c);
        Ok(c)
    }
}

impl PartialEq for Composite {
    fn eq(&self, other: &Composite) -> bool {
        self.inputs == other.inputs
            && self.nodes == other.nodes
            && self.outputs == other.outputs
            && self.consts.len() == other.consts.len()
            && self
                .consts
                .iter()
                .zip(&other.consts)
                .all(|(a, b)| a.dtype() == b.dtype() && a.to_c_bytes().ok() == b.to_c_bytes().ok())
    }
}

impl Eq for Composite {}

impl Hash for Composite {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.inputs.hash(state);
        self.nodes.hash(state);
        self.outputs.hash(state);
        for c in &self.consts {
            c.dtype().hash(state);
            c.to_c_bytes().ok().hash(state);
        }
    }
}

impl fmt::Debug for Composite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

impl fmt::Display for Composite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType::*;
    use ScalarKind as K;

    /// `((i0 + i1) * i2)` over float64 inputs.
    fn sample() -> Composite {
        let mut b = Composite::builder(&[Float64, Float64, Float64]);
        let s = b
            .push(K::Add.into(), &[Operand::Input(0), Operand::Input(1)])
            .unwrap();
        let m = b.push(K::Mul.into(), &[s, Operand::Input(2)]).unwrap();
        b.finish(&[m]).unwrap()
    }

    #[test]
    fn equality_and_hash_follow_structure() {
        use std::collections::hash_map::DefaultHasher;
        let h = |c: &Composite| {
            let mut s = DefaultHasher::new();
            c.hash(&mut s);
            s.finish()
        };
        let (a, b) = (sample(), sample());
        assert_eq!(a, b);
        assert_eq!(h(&a), h(&b));
        let mut other = Composite::builder(&[Float64, Float64, Float64]);
        let s = other
            .push(K::Add.into(), &[Operand::Input(1), Operand::Input(0)])
            .unwrap();
        let m = other.push(K::Mul.into(), &[s, Operand::Input(2)]).unwrap();
        assert_ne!(a, other.finish(&[m]).unwrap());
    }

    #[test]
    fn output_dtypes_follow_the_scalar_rules() {
        let mut b = Composite::builder(&[Int64, Float32]);
        let d = b
            .push(K::TrueDiv.into(), &[Operand::Input(0), Operand::Input(0)])
            .unwrap();
        let lt = b.push(K::Lt.into(), &[d, Operand::Input(1)]).unwrap();
        let c = b.finish(&[d, lt]).unwrap();
        assert_eq!(c.output_dtypes().as_slice(), &[Float64, Bool]);
        assert_eq!(
            c.output_dtypes_for(&[Int64, Float32]).unwrap().as_slice(),
            &[Float64, Bool]
        );
        let err = c.output_dtypes_for(&[Int64, Float64]).unwrap_err();
        assert!(err
            .to_string()
            .contains("expects inputs of dtypes (int64, float32)"));
    }

    #[test]
    fn outputs_that_are_not_fresh_nodes_get_identities() {
        let mut b = Composite::builder(&[Float64]);
        let e = b.push(K::Exp.into(), &[Operand::Input(0)]).unwrap();
        let two = b.constant(Tensor::scalar(2.0f64)).unwrap();
        let c = b.finish(&[e, e, Operand::Input(0), two]).unwrap();
        assert_eq!(c.nout(), 4);
        let ops: Vec<String> = c
            .outputs()
            .iter()
            .map(|&o| c.nodes()[o].op.to_string())
            .collect();
        assert_eq!(ops, ["exp", "identity", "identity", "identity"]);
    }

    #[test]
    fn nested_composites_are_inlined_and_restriction_drops_unused_parts() {
        let inner = sample();
        let mut b = Composite::builder(&[Float64, Float64]);
        let args = [Operand::Input(0), Operand::Input(1), Operand::Input(1)];
        let out = b.push(ScalarOp::Composite(inner.into()), &args).unwrap();
        let neg = b.push(K::Neg.into(), &[Operand::Input(0)]).unwrap();
        let c = b.finish(&[neg, out]).unwrap();
        assert!(c
            .nodes()
            .iter()
            .all(|n| !matches!(n.op, ScalarOp::Composite(_))));
        let (only, kept) = c.restricted(&[0]).unwrap();
        assert_eq!((only.nin(), only.nout(), kept), (1, 1, vec![0]));
        assert_eq!(only.name(), "Composite{(-i0)}");
    }
}
