//! Which reduction a `CAReduce` folds (`Sum`, `Prod`, `Max`, `Min`, `All`,
//! `Any`, and the bitwise folds of integers `CAReduce(and_/or_/xor)`) and
//! its dtype rules: shared by the op (`ops/reduce.rs`), the
//! reduce kernels and the fused sums, so it sits below both.

use crate::dtype::DType;

/// Which reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum ReduceKind {
    Sum,
    Prod,
    Max,
    Min,
    All,
    Any,
    /// `CAReduce(and_)` of integers: the bits set in every element.
    BitAnd,
    /// `CAReduce(or_)` of integers: the bits set in any element.
    BitOr,
    /// `CAReduce(xor)`: the bits set in an odd number of elements (of
    /// bools, whether an odd number are true).
    BitXor,
}

impl ReduceKind {
    /// The Python class name.
    pub fn class_name(self) -> &'static str {
        match self {
            ReduceKind::Sum => "Sum",
            ReduceKind::Prod => "Prod",
            ReduceKind::Max => "Max",
            ReduceKind::Min => "Min",
            ReduceKind::All => "All",
            ReduceKind::Any => "Any",
            // PyTensor has no class of its own for these.
            ReduceKind::BitAnd | ReduceKind::BitOr | ReduceKind::BitXor => "CAReduce",
        }
    }

    /// The scalar op folded over the axes (`add`, `mul`, `maximum`, ...).
    pub fn scalar_name(self) -> &'static str {
        match self {
            ReduceKind::Sum => "add",
            ReduceKind::Prod => "mul",
            ReduceKind::Max => "maximum",
            ReduceKind::Min => "minimum",
            ReduceKind::All => "and_",
            ReduceKind::Any => "or_",
            ReduceKind::BitAnd => "and_",
            ReduceKind::BitOr => "or_",
            ReduceKind::BitXor => "xor",
        }
    }

    /// Default output dtype: sums and products of small integers widen to
    /// 64 bits, logical reductions give bool, max/min keep the dtype.
    pub fn default_dtype(self, input: DType) -> DType {
        use DType::*;
        match self {
            ReduceKind::Sum | ReduceKind::Prod => match input {
                Bool | Int8 | Int16 | Int32 => Int64,
                UInt8 | UInt16 | UInt32 => UInt64,
                other => other,
            },
            ReduceKind::All | ReduceKind::Any => Bool,
            ReduceKind::Max | ReduceKind::Min => input,
            ReduceKind::BitAnd | ReduceKind::BitOr | ReduceKind::BitXor => input,
        }
    }

    /// Whether this is one of the bitwise folds (`BitAnd`, `BitOr`, `BitXor`).
    pub fn is_bitwise(self) -> bool {
        matches!(
            self,
            ReduceKind::BitAnd | ReduceKind::BitOr | ReduceKind::BitXor
        )
    }

    /// Default accumulator dtype (PyTensor's `acc_dtype`).
    pub fn default_acc_dtype(self, input: DType) -> DType {
        use DType::*;
        match (self, input) {
            (ReduceKind::Sum | ReduceKind::Prod, Float16) => Float32,
            (ReduceKind::Sum | ReduceKind::Prod, Float32) => Float64,
            (ReduceKind::Sum | ReduceKind::Prod, Complex64) => Complex128,
            _ => self.default_dtype(input),
        }
    }
}
