//! `infer_shape` rules many ops share, as macros that write the method
//! inside an `impl Op` block (as [`crate::op_identity`] writes the identity
//! methods): the output shaped like an input, like the input without the
//! reduced axes, or by the length inputs.

/// Writes `infer_shape` with `$body`, which sees the graph, the node and
/// the input shapes under the names given (`self` too: a macro's `self`
/// must come from where the method's body is written).
macro_rules! infer_shape_fn {
    ($self:ident, $g:ident, $node:ident, $shapes:ident => $body:expr) => {
        fn infer_shape(
            &$self,
            $g: &mut $crate::graph::Graph,
            $node: $crate::graph::NodeId,
            $shapes: &[Vec<$crate::graph::VarId>],
        ) -> $crate::error::Result<Option<Vec<Vec<$crate::graph::VarId>>>> {
            $body
        }
    };
}
pub(crate) use infer_shape_fn;

/// `infer_shape`: the one output is shaped like input `$i`.
macro_rules! shape_of_input {
    ($i:expr) => {
        $crate::ops::shape_rules::infer_shape_fn!(self, _g, _node, input_shapes => {
            Ok(Some(vec![input_shapes[$i].clone()]))
        });
    };
}
pub(crate) use shape_of_input;

/// `infer_shape` of a reduction whose `axis` field names the reduced axes
/// (see [`super::reduced_axes`]): input 0's shape without them.
macro_rules! shape_without_axes {
    () => {
        $crate::ops::shape_rules::infer_shape_fn!(self, _g, _node, input_shapes => {
            let axis = self.axis.as_deref();
            let kept = $crate::ops::reduced_axes::kept_shape(axis, &input_shapes[0]);
            Ok(Some(vec![kept]))
        });
    };
}
pub(crate) use shape_without_axes;

/// `output_types` and `infer_shape` of a one-input reduction with an
/// `axis` field (as [`shape_without_axes`]) and an `output_type` method
/// typing its output from its input's.
macro_rules! reduction_types {
    () => {
        fn output_types(
            &self,
            inputs: &[&$crate::types::Type],
        ) -> $crate::error::Result<Vec<$crate::types::Type>> {
            let t = $crate::ops::arity::single_tensor(self, inputs)?;
            Ok(vec![self.output_type(t)?.into()])
        }

        $crate::ops::shape_rules::shape_without_axes!();
    };
}
pub(crate) use reduction_types;

/// `infer_shape`: the output's lengths are the inputs in `$range` (integer
/// scalars), as `Alloc`'s and `Eye`'s are.
macro_rules! shape_from_lengths {
    ($range:expr) => {
        $crate::ops::shape_rules::infer_shape_fn!(self, g, node, _input_shapes => {
            let lengths = g.node(node).inputs[$range].to_vec();
            let shape = lengths
                .into_iter()
                .map(|v| $crate::ops::known::len_var(g, v))
                .collect::<$crate::error::Result<_>>()?;
            Ok(Some(vec![shape]))
        });
    };
}
pub(crate) use shape_from_lengths;
