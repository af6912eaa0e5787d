//! Helpers the integration tests share: inputs, a compile spec, and the
//! values and op names that come out.

use oxtensor_core::compile::{FunctionInput, FunctionSpec};
use oxtensor_core::prelude::*;
use oxtensor_core::value::Value;

/// A float64 vector input.
pub fn vector(g: &mut Graph, name: &str) -> VarId {
    g.input(TensorType::with_ndim(DType::Float64, 1), Some(name))
}

/// A float64 matrix input.
pub fn matrix(g: &mut Graph, name: &str) -> VarId {
    g.input(TensorType::with_ndim(DType::Float64, 2), Some(name))
}

/// A function of `inputs` computing `outputs` (none of them borrowed).
pub fn spec(inputs: &[VarId], outputs: &[VarId]) -> FunctionSpec {
    FunctionSpec {
        inputs: inputs.iter().map(|&v| FunctionInput::new(v)).collect(),
        outputs: outputs.iter().map(|&v| (v, false)).collect(),
        ..FunctionSpec::default()
    }
}

/// A float tensor's values, in C order.
pub fn values(v: &Value) -> Vec<f64> {
    v.tensor().unwrap().float_values().expect("float values")
}

/// The ops of `fg` in run order, as they print.
pub fn op_names(fg: &FunctionGraph) -> Vec<String> {
    fg.toposort()
        .unwrap()
        .into_iter()
        .map(|n| fg.graph().node(n).op.describe())
        .collect()
}
