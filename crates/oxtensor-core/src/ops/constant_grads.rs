//! Gradient methods of ops whose outputs do not move under small changes
//! of their inputs' values, as macros that write them inside an `impl Op`
//! block: positions (`Argmax`, `Argmin`) are piecewise constant, so their
//! gradient is zeros; shapes and lengths (`Shape`, `AllocEmpty`) do not
//! depend on the values at all, so every input is disconnected.

/// Writes `pullback` with `$body`, which sees the graph, the node and the
/// output gradients under the names given (as `infer_shape_fn!` writes
/// `infer_shape`).
macro_rules! pullback_fn {
    ($g:ident, $node:ident, $grads:ident => $body:expr) => {
        fn pullback(
            &self,
            $g: &mut $crate::graph::Graph,
            $node: $crate::graph::NodeId,
            $grads: &[$crate::graph::VarId],
        ) -> $crate::error::Result<Vec<$crate::graph::VarId>> {
            $body
        }
    };
}
pub(crate) use pullback_fn;

/// Writes `pullback` with `$body`, which sees the graph and the node under
/// the names given, then a `pushforward` with no tangent.
macro_rules! grads_without_tangent {
    ($g:ident, $node:ident => $body:expr) => {
        $crate::ops::constant_grads::pullback_fn!($g, $node, _output_grads => $body);

        $crate::ops::constant_grads::no_tangent!();
    };
}
pub(crate) use grads_without_tangent;

/// A one-input op whose output is piecewise constant in its input (a
/// position does not change under small changes of the values): the
/// gradient is zeros, in the input's gradient dtype.
macro_rules! piecewise_constant_grads {
    () => {
        $crate::ops::constant_grads::grads_without_tangent!(g, node => {
            let x = g.node(node).inputs[0];
            let dtype = $crate::ops::scalar_grad::tensor(g, x)?.dtype;
            let dt = $crate::ops::scalar_grad::grad_dtype(dtype);
            Ok(vec![$crate::build::zeros_like(g, x, dt)?])
        });
    };
}
pub(crate) use piecewise_constant_grads;

/// `pullback` of an op no gradient flows through: every input is
/// disconnected.
macro_rules! disconnected_pullback {
    () => {
        $crate::ops::constant_grads::pullback_fn!(g, node, _output_grads => {
            let n = g.node(node).inputs.len();
            Ok((0..n).map(|_| $crate::ops::scalar_grad::disconnected(g)).collect())
        });
    };
}
pub(crate) use disconnected_pullback;

/// An op whose one output reads only its inputs' shapes or lengths: every
/// input is disconnected.
macro_rules! disconnected_grads {
    () => {
        $crate::ops::constant_grads::disconnected_pullback!();

        $crate::ops::constant_grads::no_tangent!();
    };
}
pub(crate) use disconnected_grads;

/// `pushforward` of a one-output op with no tangent.
macro_rules! no_tangent {
    () => {
        fn pushforward(
            &self,
            _g: &mut $crate::graph::Graph,
            _node: $crate::graph::NodeId,
            _tangents: &[Option<$crate::graph::VarId>],
        ) -> $crate::error::Result<Option<Vec<Option<$crate::graph::VarId>>>> {
            Ok(Some(vec![None]))
        }
    };
}
pub(crate) use no_tangent;
