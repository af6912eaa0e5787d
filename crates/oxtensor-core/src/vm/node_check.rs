//! What every step's outputs must be (set, and of their declared types),
//! and the context an error names its node with (PyTensor's
//! `raise_with_op`: the node, its position, its inputs' shapes and dtypes).

use crate::error::{Error, Result};
use crate::types::Type;
use crate::value::Value;

/// Every output must be set and match its declared type.
pub(super) fn check_outputs(types: &[Type], outs: &[Option<Value>]) -> Result<()> {
    for (i, (v, ty)) in outs.iter().zip(types).enumerate() {
        let Some(v) = v else {
            return Err(Error::Value(format!("output {i} was not computed")));
        };
        if let (Value::Tensor(t), Type::Tensor(tt)) = (v, ty) {
            if t.dtype() != tt.dtype {
                return Err(Error::Type(format!(
                    "output {i} should be {tt}, got dtype {} with shape {:?}",
                    t.dtype(),
                    t.shape()
                )));
            }
            if !tt.fits(t.shape()) {
                tt.check_shape(t.shape())
                    .map_err(|e| Error::Type(format!("output {i} should be {tt}: {e}")))?;
            }
        }
        if let (Value::Tensor(t), Type::Scalar(dtype)) = (v, ty) {
            if t.dtype() != *dtype || t.ndim() != 0 {
                return Err(Error::Type(format!(
                    "output {i} should be a {dtype} scalar, got dtype {} with shape {:?}",
                    t.dtype(),
                    t.shape()
                )));
            }
        }
    }
    Ok(())
}

/// PyTensor's `raise_with_op` context: the node, its position and its inputs.
pub(super) fn node_context(k: usize, label: &str, inputs: &[&Value]) -> String {
    let shapes: Vec<String> = inputs
        .iter()
        .map(|v| match v {
            Value::Tensor(t) => format!("{:?}", t.shape()),
            Value::Host(_) => "host value".into(),
        })
        .collect();
    let dtypes: Vec<String> = inputs
        .iter()
        .map(|v| match v {
            Value::Tensor(t) => t.dtype().to_string(),
            Value::Host(_) => "host".into(),
        })
        .collect();
    format!(
        "{label}\nToposort index: {k}\nInputs shapes: [{}]\nInputs dtypes: [{}]",
        shapes.join(", "),
        dtypes.join(", ")
    )
}
