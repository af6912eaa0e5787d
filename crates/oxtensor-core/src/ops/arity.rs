//! How an op checks the number of inputs a node gives it, with the message
//! PyTensor's `make_node` gives ("Sum{axes=None} takes 1 input, got 2").

use super::Op;
use crate::error::{Error, Result};
use crate::types::{TensorType, Type};
use std::fmt::Display;

/// The `N` inputs of an `N`-input op, or a `TypeError` naming `op`.
pub fn exactly<'a, const N: usize>(op: impl Display, inputs: &[&'a Type]) -> Result<[&'a Type; N]> {
    <[&Type; N]>::try_from(inputs).map_err(|_| {
        let s = if N == 1 { "" } else { "s" };
        Error::Type(format!("{op} takes {N} input{s}, got {}", inputs.len()))
    })
}

/// The `N` inputs of an `N`-input op, each a tensor: a `TypeError` naming
/// `op`, or the input by its name in `names` ("The values of TakeAlongAxis").
pub fn tensors<'a, const N: usize>(
    op: &str,
    inputs: &[&'a Type],
    names: [&str; N],
) -> Result<[&'a TensorType; N]> {
    let types = exactly::<N>(op, inputs)?;
    let mut tensors = Vec::with_capacity(N);
    for (t, name) in types.iter().zip(names) {
        tensors.push(t.expect_tensor(&format!("The {name} of {op}"))?);
    }
    Ok(tensors.try_into().expect("one tensor per input"))
}

/// The one input of a one-input op, or a `TypeError` naming the op as it
/// prints.
pub fn single_input<'a>(op: &dyn Op, inputs: &[&'a Type]) -> Result<&'a Type> {
    let [input] = exactly(op, inputs)?;
    Ok(input)
}

/// The one input of a one-input op, a tensor: a `TypeError` naming the op
/// ("The input of Argmax must be a tensor") otherwise.
pub fn single_tensor<'a>(op: &dyn Op, inputs: &[&'a Type]) -> Result<&'a TensorType> {
    single_input(op, inputs)?.expect_tensor(&format!("The input of {}", op.name()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;

    #[test]
    fn counts_and_names() {
        let t = Type::from(crate::types::TensorType::scalar(DType::Int8));
        let [a, b] = exactly::<2>("Dot", &[&t, &t]).unwrap();
        assert_eq!((a, b), (&t, &t));
        let err = exactly::<2>("Dot", &[&t]).unwrap_err().to_string();
        assert!(err.contains("Dot takes 2 inputs, got 1"), "{err}");
        let err = exactly::<1>("Shape", &[]).unwrap_err().to_string();
        assert!(err.contains("Shape takes 1 input, got 0"), "{err}");
    }
}
