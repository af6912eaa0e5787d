//! The `Op` contract of the seeds, as a Rust trait. Built-in ops implement it
//! in Rust; ops written in Python implement it through the host adapter in
//! the PyO3 crate. One file per op family.

pub mod advanced_inc_subtensor;
pub mod advanced_subtensor;
pub mod alloc;
pub mod arange;
pub mod argmax;
pub mod argmin;
mod arity;
pub mod bartlett;
pub mod bincount;
pub mod blas;
pub mod blockwise;
pub mod centred_squares;
pub mod choose;
mod composite_graph;
pub mod composite_reduce;
mod constant_grads;
pub mod convolve;
pub mod cpu_contiguous;
pub mod cumulative;
pub mod deep_copy;
pub mod diagonal;
pub mod dimshuffle;
pub mod elemwise;
mod elemwise_loop;
pub mod fft;
pub mod fill_diagonal;
pub mod gemv;
pub mod grad_ops;
mod grad_rules;
pub mod ifelse;
pub mod index_list;
pub mod infer_shape;
pub mod join;
pub mod known;
pub mod linalg;
pub mod logsumexp;
pub mod make_vector;
pub mod matmul;
pub mod nonzero;
pub mod permute_rows;
pub mod prod_without_zeros;
pub mod ravel_index;
pub mod reduce;
pub mod reduced_axes;
pub mod repeat;
pub(crate) mod scalar_grad;
mod scalar_grad_math;
mod scalar_grad_special;
mod scalar_graph;
mod scalar_graph_grad;
mod scalar_loop_graph;
pub mod scalar_tensor;
pub mod searchsorted;
pub mod shape;
mod shape_rules;
pub mod softmax;
pub mod sort;
pub mod specify_shape;
pub mod split;
pub mod subtensor;
mod subtensor_grad;
pub(crate) mod subtensor_shape;
#[cfg(test)]
pub(crate) mod test_support;
pub mod unique;

use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, VarId};
use crate::kernels::alloc::Pool;
use crate::types::Type;
use crate::value::Value;
use std::any::Any;
use std::fmt;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;

/// A shared handle to an op.
pub type OpRef = Arc<dyn Op>;

/// `view_map` / `destroy_map`: `(output index, [input indices])` pairs.
pub type IoMap = Vec<(usize, Vec<usize>)>;

/// The output slots [`Op::perform`] fills, one per output.
pub type Outs = [Option<Value>];

/// One variable's symbolic shape (its dims): an int64 scalar variable per
/// axis.
pub type Dims = Vec<VarId>;

/// What [`Op::infer_shape`] gives: each output's [`Dims`], or `None`
/// when the op cannot tell without running.
pub type InferredShapes = Result<Option<Vec<Dims>>>;

/// What [`Op::pushforward`] gives: each output's tangent (`None`: zero), or
/// `None` when the op has no rule of its own.
pub type Tangents = Result<Option<Vec<Option<VarId>>>>;

/// What `perform` knows of its node besides the values.
pub struct PerformCtx<'a> {
    /// The node's input types.
    pub input_types: &'a [Type],
    /// The node's output types.
    pub output_types: &'a [Type],
    /// Each tensor input's static broadcastable flags (computed at link time).
    pub input_bcast: &'a [Vec<bool>],
    /// Buffers to allocate outputs from.
    pub pool: &'a mut Pool,
}

impl PerformCtx<'_> {
    /// The static broadcastable flags of each tensor type.
    pub fn broadcastable(types: &[Type]) -> Vec<Vec<bool>> {
        types
            .iter()
            .map(|t| t.as_tensor().map(|t| t.broadcastable()).unwrap_or_default())
            .collect()
    }

    /// The dtype of tensor output `i`.
    pub fn output_dtype(&self, i: usize) -> Result<crate::dtype::DType> {
        Ok(self
            .output_types
            .get(i)
            .ok_or_else(|| Error::Index(format!("no output {i}")))?
            .expect_tensor("The output")?
            .dtype)
    }
}

/// An operation: what a node of the graph computes.
///
/// Required methods are identity (class name, `str`, equality, hash) and type
/// inference; the optional hooks default to what PyTensor's `Op` base does.
pub trait Op: fmt::Debug + Send + Sync + Any {
    /// The class name, as PyTensor names it (`Elemwise`, `DimShuffle`, ...).
    fn name(&self) -> &str;

    /// PyTensor's `str(op)`, what `dprint` shows (`Add`, `ExpandDims{axis=0}`).
    /// The default is the class name, as for an op without props.
    fn describe(&self) -> String {
        self.name().to_owned()
    }

    /// The classes this op is an instance of, most specific first, as
    /// rewriters track them: PyTensor dispatches a rewriter that tracks a
    /// class to instances of its subclasses too (`Sum` is a `CAReduce`).
    /// The default is the op's own class.
    fn class_path(&self) -> smallvec::SmallVec<[&str; 2]> {
        smallvec::smallvec![self.name()]
    }

    /// `__eq__`: a promise that both ops compute the same thing.
    fn op_eq(&self, other: &dyn Op) -> bool;

    /// `__hash__`, consistent with [`Op::op_eq`].
    fn op_hash(&self) -> u64;

    /// `make_node`'s type inference: the output types for these input types.
    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>>;

    /// Which output `__call__` returns (`default_output`).
    fn default_output(&self) -> Option<usize> {
        None
    }

    /// Outputs that are views of inputs.
    fn view_map(&self) -> IoMap {
        Vec::new()
    }

    /// Outputs computed by overwriting inputs.
    fn destroy_map(&self) -> IoMap {
        Vec::new()
    }

    /// `(destroyed, other)` input pairs where the op copes with `other`
    /// being the very variable it destroys (`add_inplace(x, x)`), so the
    /// destroy handler lets it be (`destroyhandler_tolerate_same`).
    fn destroyhandler_tolerate_same(&self) -> Vec<(usize, usize)> {
        Vec::new()
    }

    /// `(destroyed, other)` input pairs where `other` may be any alias of
    /// the destroyed input (`destroyhandler_tolerate_aliased`).
    fn destroyhandler_tolerate_aliased(&self) -> Vec<(usize, usize)> {
        Vec::new()
    }

    /// `connection_pattern[input][output]`; `None` means fully connected.
    fn connection_pattern(&self, _n_inputs: usize) -> Result<Option<Vec<Vec<bool>>>> {
        Ok(None)
    }

    /// The input `perform` may turn into its output in place when the
    /// program lends it: `perform` then asks `ctx.pool.take_loan` for it,
    /// which hands it over only if nothing else can see its memory. No
    /// `destroy_map` is involved: the graph's values are unchanged.
    fn overwritable_input(&self) -> Option<usize> {
        None
    }

    /// Whether `perform` reads bool input `input` as bytes, any nonzero byte
    /// meaning true (`kernels/bool_ops.rs`), given the node's types: a host
    /// may then pass memory holding bytes other than 0 and 1 unconverted.
    fn reads_bool_bytes(&self, input: usize, input_types: &[Type], output_types: &[Type]) -> bool {
        let _ = (input, input_types, output_types);
        false
    }

    /// Computes the outputs from the inputs. `outputs[i]` may hold a value
    /// from an earlier call, which the op may reuse or replace; every output
    /// must be set on success.
    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let _ = (ctx, inputs, outputs);
        Err(Error::OutOfScope(format!(
            "{} has no implementation to run (no perform)",
            self.describe()
        )))
    }

    /// `L_op` / `pullback`: one gradient term per input of `node`, given one
    /// gradient per output (a `DisconnectedType` variable for outputs the
    /// cost does not depend on). Terms are new nodes added to `g`; see
    /// [`crate::grad`] for the rules the driver enforces around this call.
    fn pullback(&self, g: &mut Graph, node: NodeId, output_grads: &[VarId]) -> Result<Vec<VarId>> {
        let _ = (g, node, output_grads);
        Err(Error::NotImplemented(format!(
            "grad not implemented for Op {}",
            self.describe()
        )))
    }

    /// `R_op` / `pushforward`: each output's tangent given the inputs'
    /// tangents (`None`: zero). `Ok(None)` means the op has no rule of its
    /// own, and the driver derives one from [`Op::pullback`] (the double
    /// pullback trick).
    fn pushforward(&self, g: &mut Graph, node: NodeId, tangents: &[Option<VarId>]) -> Tangents {
        let _ = (g, node, tangents);
        Ok(None)
    }

    /// `infer_shape`: each output's shape (one int64 scalar variable per
    /// axis) from the inputs' shapes in the same form (empty for 0-d and
    /// non-tensor inputs), as new nodes in `g`. `Ok(None)`: the op cannot
    /// tell without running; callers fall back to `Shape_i` of the output
    /// ([`infer_shape::output_shapes`]).
    fn infer_shape(&self, g: &mut Graph, node: NodeId, input_shapes: &[Dims]) -> InferredShapes {
        let _ = (g, node, input_shapes);
        Ok(None)
    }

    /// The gufunc signature of the op's computation (`"(m,m)->()"`) when
    /// one holds for every node of it: `vectorize_graph` names the
    /// `Blockwise` it makes with it. `None`: the signature is read off the
    /// node's ranks.
    fn gufunc_signature(&self) -> Option<&'static str> {
        None
    }

    /// Whether this op lives in the host language (a Python op): the
    /// gradient driver then asks the host, not these methods.
    fn is_host(&self) -> bool {
        false
    }

    /// Whether constant folding may precompute this node.
    fn do_constant_folding(&self) -> Result<bool> {
        Ok(true)
    }

    /// Link-time work on a constant input: the value `perform` would derive
    /// from `value` (input `input`) on every call, e.g. its cast to the
    /// dtype the op computes in. `perform` must give the same results when
    /// handed that value instead. `None`: nothing to precompute.
    fn prepare_constant(
        &self,
        input: usize,
        value: &Value,
        input_types: &[Type],
        output_types: &[Type],
    ) -> Option<Value> {
        let _ = (input, value, input_types, output_types);
        None
    }

    /// A thunk of the op's own for a node with these types, made once at
    /// link time (PyTensor's `make_thunk`), so what it works out from the
    /// types (a fused kernel's plan) is not redone per call. `None`: the
    /// linker's thunk, which calls [`Op::perform`].
    fn make_thunk(
        &self,
        input_types: &[Type],
        output_types: &[Type],
    ) -> Option<Box<dyn crate::vm::Thunk>> {
        let _ = (input_types, output_types);
        None
    }

    /// The scalar graph inside the op (a `Composite`'s, PyTensor's
    /// `HasInnerGraph`), which `dprint` shows under "Inner graphs".
    fn inner_fgraph(&self) -> Option<Result<crate::graph::FunctionGraph>> {
        None
    }

    /// For downcasting to the concrete op.
    fn as_any(&self) -> &dyn Any;
}

impl fmt::Display for dyn Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe())
    }
}

/// Equality of two op handles, by props.
pub fn ops_equal(a: &OpRef, b: &OpRef) -> bool {
    Arc::ptr_eq(a, b) || a.op_eq(b.as_ref())
}

/// Writes `perform` of a one-output op as `$kernel`, which sees `self`,
/// the context and the inputs under the names given and gives the tensor.
macro_rules! perform_one {
    ($self:ident, $ctx:ident, $inputs:ident => $kernel:expr) => {
        fn perform(
            &$self,
            $ctx: &mut $crate::ops::PerformCtx,
            $inputs: &[&$crate::value::Value],
            outputs: &mut $crate::ops::Outs,
        ) -> $crate::error::Result<()> {
            outputs[0] = Some($kernel?.into());
            Ok(())
        }
    };
}
pub(crate) use perform_one;

/// Python's spelling of a boolean prop in an op's `describe`.
pub fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

/// `op_eq` for ops whose props are their Rust fields.
pub fn props_eq<T: PartialEq + 'static>(this: &T, other: &dyn Op) -> bool {
    other
        .as_any()
        .downcast_ref::<T>()
        .is_some_and(|o| o == this)
}

/// `op_hash` for ops whose props are their Rust fields.
pub fn props_hash<T: Hash + 'static>(this: &T) -> u64 {
    let mut h = DefaultHasher::new();
    std::any::TypeId::of::<T>().hash(&mut h);
    this.hash(&mut h);
    h.finish()
}

/// Implements the identity methods of [`Op`] from the type's `PartialEq` and
/// `Hash`; `op_identity!("Name")` also gives [`Op::name`], and
/// `op_identity!("Name", self => "axis={}", self.axis)` also
/// [`Op::describe`] as PyTensor prints props, `Name{axis=1}` (`self` is
/// passed in because a macro's own `self` cannot reach the caller's fields).
#[macro_export]
macro_rules! op_identity {
    ($name:literal, $self:ident => $props:literal $(, $arg:expr)* $(,)?) => {
        $crate::op_identity!($name);
        fn describe(&$self) -> String {
            format!(concat!($name, "{{", $props, "}}") $(, $arg)*)
        }
    };
    ($name:literal) => {
        fn name(&self) -> &str {
            $name
        }
        $crate::op_identity!();
    };
    () => {
        fn op_eq(&self, other: &dyn $crate::ops::Op) -> bool {
            $crate::ops::props_eq(self, other)
        }
        fn op_hash(&self) -> u64 {
            $crate::ops::props_hash(self)
        }
        fn as_any(&self) -> &dyn std::any::Any {
            self
        }
    };
}
