//! The `Jacobian` op: a node that computes the Jacobian by running its
//! inner graph (see `inner.rs`) once per element of the expression, with
//! the unit vector `e_i` as the cotangent, and stacking the rows. PyTensor
//! builds the same loop with `scan`. The inner graph is compiled with the
//! core compiler on first use, once per op; running a [`Program`] from
//! inside `perform` is safe, as a program called while it runs (or from
//! two threads) takes a fresh workspace.

use super::inner::{copy_between, Inner};
use crate::compile::{compile, FunctionInput, FunctionSpec, Mode, OnUnused};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::{FunctionGraph, Graph, NodeId, VarId};
use crate::ops::infer_shape::{output_shapes, shape_vars};
use crate::ops::{Dims, InferredShapes, Op, Outs, PerformCtx};
use crate::tensor::Tensor;
use crate::types::{TensorType, Type};
use crate::value::Value;
use crate::vm::Program;
use std::any::Any;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};

/// The Jacobian of an expression with respect to some variables: one
/// output per `wrt` entry, shaped `expression.shape + wrt.shape`. Each
/// instance is its own computation, so instances compare by identity.
pub struct Jacobian {
    inner: Inner,
    out_types: Vec<Type>,
    /// The compiled inner graph, made on first use.
    programs: Mutex<Option<Arc<Programs>>>,
}

/// What a call runs: the shapes of the expression and of each `wrt`
/// (rewritten, so a shape is mostly had without computing the value), and
/// the rows for a given `u`.
struct Programs {
    shapes: Program,
    rows: Program,
}

impl fmt::Debug for Jacobian {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Jacobian")
            .field("inner", &self.inner)
            .field("out_types", &self.out_types)
            .finish_non_exhaustive()
    }
}

impl Jacobian {
    /// The op over `inner`: one output per `wrt` entry, of its row's dtype
    /// and shaped `y.shape + wrt.shape`.
    pub fn new(inner: Inner) -> Result<Jacobian> {
        let g = &inner.graph;
        let tensor = |v: VarId| g.var(v).ty.expect_tensor("A Jacobian's variable").cloned();
        let y = tensor(inner.y)?;
        let mut out_types = Vec::with_capacity(inner.wrt.len());
        for (&w, &row) in inner.wrt.iter().zip(&inner.rows) {
            let w = tensor(w)?;
            let shape = y.shape.iter().chain(&w.shape).copied();
            out_types.push(TensorType::new(tensor(row)?.dtype, shape)?.into());
        }
        Ok(Jacobian {
            inner,
            out_types,
            programs: Mutex::new(None),
        })
    }

    /// The inner graph.
    pub fn inner(&self) -> &Inner {
        &self.inner
    }

    /// The compiled inner graph. The lock is not held while compiling: the
    /// rewrites may call the host (a Python op's `make_node`), which may be
    /// waiting for this very lock in another thread; two racing first
    /// calls compile twice and keep one.
    fn programs(&self) -> Result<Arc<Programs>> {
        if let Some(p) = self.lock()?.as_ref() {
            return Ok(p.clone());
        }
        let made = Arc::new(self.compile()?);
        Ok(self.lock()?.get_or_insert(made).clone())
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, Option<Arc<Programs>>>> {
        self.programs
            .lock()
            .map_err(|_| Error::Value("a previous compilation of a Jacobian panicked".into()))
    }

    fn compile(&self) -> Result<Programs> {
        let inputs: Vec<FunctionInput> = self
            .inner
            .inputs
            .iter()
            .map(|&v| FunctionInput::new(v))
            .collect();
        let program = |inputs: Vec<FunctionInput>, outputs: &[VarId]| -> Result<Program> {
            let spec = FunctionSpec {
                inputs,
                outputs: outputs.iter().map(|&v| (v, false)).collect(),
                on_unused_input: OnUnused::Ignore,
                ..FunctionSpec::default()
            };
            Ok(compile(self.inner.graph.clone(), spec, &Mode::fast_run())?.program)
        };
        let shapes = program(inputs.clone(), &self.inner.shapes)?;
        let mut with_u = inputs;
        with_u.push(FunctionInput::new(self.inner.u));
        let rows = program(with_u, &self.inner.rows)?;
        Ok(Programs { shapes, rows })
    }

    /// The dtype of the unit vectors (`u`'s).
    fn u_dtype(&self) -> Result<DType> {
        Ok(self
            .inner
            .graph
            .var(self.inner.u)
            .ty
            .expect_tensor("u")?
            .dtype)
    }
}

/// The lengths in a shape vector computed by the inner graph.
fn dims(v: &Value) -> Result<Vec<usize>> {
    let t = crate::kernels::elemwise::cast::cast(v.tensor()?, DType::Int64)?;
    let s = t
        .as_slice::<i64>()
        .ok_or_else(|| Error::Value("a Jacobian's shape vector is not contiguous".into()))?;
    s.iter()
        .map(|&d| usize::try_from(d).map_err(|_| Error::Shape(format!("negative length {d}"))))
        .collect()
}

/// The `i`-th unit vector of length `n`.
fn unit(n: usize, i: usize, dtype: DType) -> Result<Tensor> {
    let mut e = vec![0.0f64; n];
    e[i] = 1.0;
    let t = Tensor::from_vec(vec![n], e)?;
    match dtype {
        DType::Float64 => Ok(t),
        _ => crate::kernels::elemwise::cast::cast(&t, dtype),
    }
}

impl Op for Jacobian {
    fn name(&self) -> &str {
        "Jacobian"
    }

    fn op_eq(&self, other: &dyn Op) -> bool {
        other
            .as_any()
            .downcast_ref::<Jacobian>()
            .is_some_and(|o| std::ptr::eq(o, self))
    }

    fn op_hash(&self) -> u64 {
        std::ptr::from_ref(self) as usize as u64
    }

    /// The inputs must be of the stand-ins' types (the outer variables').
    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let want = &self.inner.inputs;
        if inputs.len() != want.len() {
            return Err(Error::Type(format!(
                "Jacobian takes {} inputs (the free variables of its expression), got {}",
                want.len(),
                inputs.len()
            )));
        }
        for (i, (&got, &v)) in inputs.iter().zip(want).enumerate() {
            let ty = &self.inner.graph.var(v).ty;
            if got != ty && !ty.is_super(got) {
                return Err(Error::Type(format!(
                    "Jacobian input {i} ({}) must be of type {ty}, got {got}",
                    self.inner.graph.describe_var(v)
                )));
            }
        }
        Ok(self.out_types.clone())
    }

    fn perform(&self, _ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let programs = self.programs()?;
        let mut args: Vec<Value> = inputs.iter().map(|&v| v.clone()).collect();
        let shapes = programs
            .shapes
            .run(&args)?
            .iter()
            .map(dims)
            .collect::<Result<Vec<_>>>()?;
        let (y_shape, wrt_shapes) = shapes.split_first().expect("y's shape comes first");
        let n: usize = y_shape.iter().product();
        let mut data: Vec<Vec<u8>> = vec![Vec::new(); wrt_shapes.len()];
        let dtype = self.u_dtype()?;
        args.push(Value::Tensor(unit(1, 0, dtype)?));
        for i in 0..n {
            *args.last_mut().expect("u was pushed") = Value::Tensor(unit(n, i, dtype)?);
            let rows = programs.rows.run(&args)?;
            for ((row, shape), bytes) in rows.iter().zip(wrt_shapes).zip(&mut data) {
                let row = row.tensor()?;
                if row.shape() != shape.as_slice() {
                    return Err(Error::Shape(format!(
                        "Jacobian: row {i} has shape {:?}, but its wrt has shape {shape:?}",
                        row.shape()
                    )));
                }
                bytes.extend(row.to_c_bytes()?);
            }
        }
        for (k, (shape, bytes)) in wrt_shapes.iter().zip(data).enumerate() {
            let full: Vec<usize> = y_shape.iter().chain(shape).copied().collect();
            outputs[k] =
                Some(Tensor::from_bytes(ctx_dtype(&self.out_types[k])?, full, bytes)?.into());
        }
        Ok(())
    }

    /// Not implemented, as in the Python op it replaces: a Jacobian of a
    /// Jacobian would need the loop itself differentiated (PyTensor's `scan`).
    fn pullback(&self, g: &mut Graph, node: NodeId, _output_grads: &[VarId]) -> Result<Vec<VarId>> {
        let inputs = g.node(node).inputs.clone();
        Ok(inputs
            .iter()
            .enumerate()
            .map(|(i, &x)| {
                let why = format!(
                    "This variable is Null because the grad method for input {i} ({}) of the \
                     Jacobian op is not implemented. The Jacobian of a Jacobian needs scan.",
                    g.describe_var(x)
                );
                g.input(Type::Null(why.into()), None)
            })
            .collect())
    }

    /// `y.shape + wrt.shape`, from the inner graph's shapes: the nodes
    /// computing `y` and `wrt` are copied into `g` over the node's inputs
    /// and their own `infer_shape`s give the lengths.
    fn infer_shape(&self, g: &mut Graph, node: NodeId, input_shapes: &[Dims]) -> InferredShapes {
        let outer = g.node(node).inputs.clone();
        let mut map: HashMap<VarId, VarId> = self
            .inner
            .inputs
            .iter()
            .copied()
            .zip(outer.iter().copied())
            .collect();
        let mut shapes: HashMap<VarId, Dims> = outer
            .iter()
            .copied()
            .zip(input_shapes.iter().cloned())
            .collect();
        let roots: Vec<VarId> = [self.inner.y]
            .iter()
            .chain(&self.inner.wrt)
            .copied()
            .collect();
        for n in copy_between(&self.inner.graph, &roots, g, &mut map)? {
            let ins = g.node(n).inputs.clone();
            let mut in_shapes = Vec::with_capacity(ins.len());
            for v in ins {
                in_shapes.push(match shapes.get(&v) {
                    Some(s) => s.clone(),
                    None => shape_vars(g, v)?,
                });
            }
            let outs = g.node(n).outputs.clone();
            shapes.extend(outs.into_iter().zip(output_shapes(g, n, &in_shapes)?));
        }
        let mut shape_of = |v: VarId| -> Result<Dims> {
            let v = map[&v];
            match shapes.get(&v) {
                Some(s) => Ok(s.clone()),
                None => shape_vars(g, v),
            }
        };
        let y = shape_of(self.inner.y)?;
        let mut out = Vec::with_capacity(self.inner.wrt.len());
        for &w in &self.inner.wrt {
            out.push(y.iter().copied().chain(shape_of(w)?).collect());
        }
        Ok(Some(out))
    }

    fn inner_fgraph(&self) -> Option<Result<FunctionGraph>> {
        Some(self.inner.rows_fgraph())
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The dtype of a Jacobian output type.
fn ctx_dtype(ty: &Type) -> Result<DType> {
    Ok(ty.expect_tensor("A Jacobian output")?.dtype)
}
