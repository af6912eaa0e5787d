//! Types: static information about the values a variable can hold.
//! `TensorType` (dtype + static shape), `ScalarType` (the element type of
//! scalar graphs, a `Composite`'s inside), PyTensor's `NullType` and
//! `DisconnectedType`, and host types (defined by Python subclasses of `Type`).
//! Mirrors `pytensor/graph/type.py`, `pytensor/tensor/type.py` and
//! `ScalarType` in `pytensor/scalar/basic.py`.

use crate::dtype::DType;
use crate::error::{Error, Result};
use smallvec::SmallVec;
use std::any::Any;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// A static shape: one entry per dimension, `None` where the length is unknown.
pub type StaticShape = SmallVec<[Option<u64>; 4]>;

/// The most dimensions a tensor may have (NumPy's limit).
pub const MAX_NDIM: usize = 64;

/// The type of tensor variables: a dtype and a static shape.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TensorType {
    /// Element type.
    pub dtype: DType,
    /// Static length of each dimension (`None`: unknown).
    pub shape: StaticShape,
}

impl TensorType {
    /// A tensor type; fails beyond [`MAX_NDIM`] dimensions.
    pub fn new(dtype: DType, shape: impl IntoIterator<Item = Option<u64>>) -> Result<Self> {
        let shape: StaticShape = shape.into_iter().collect();
        if shape.len() > MAX_NDIM {
            return Err(Error::Value(format!(
                "maximum supported dimension for a TensorType is currently {MAX_NDIM}, found {}",
                shape.len()
            )));
        }
        Ok(TensorType { dtype, shape })
    }

    /// A type of the given rank with every length unknown.
    pub fn with_ndim(dtype: DType, ndim: usize) -> Self {
        TensorType {
            dtype,
            shape: std::iter::repeat_n(None, ndim).collect(),
        }
    }

    /// A 0-d type.
    pub fn scalar(dtype: DType) -> Self {
        Self::with_ndim(dtype, 0)
    }

    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// Which dimensions are statically 1 (PyTensor's `broadcastable`).
    pub fn broadcastable(&self) -> Vec<bool> {
        self.shape.iter().map(|s| *s == Some(1)).collect()
    }

    /// The same static shape with another dtype.
    pub fn with_dtype(&self, dtype: DType) -> Self {
        TensorType {
            dtype,
            shape: self.shape.clone(),
        }
    }

    /// Same dtype and broadcastable pattern (`TensorType.in_same_class`).
    pub fn in_same_class(&self, other: &TensorType) -> bool {
        self.dtype == other.dtype && self.broadcastable() == other.broadcastable()
    }

    /// Whether every value of `other` is a value of `self`: same dtype and
    /// rank, and each static length of `self` is unknown or equal.
    pub fn is_super(&self, other: &TensorType) -> bool {
        self.dtype == other.dtype
            && self.ndim() == other.ndim()
            && self
                .shape
                .iter()
                .zip(&other.shape)
                .all(|(s, o)| s.is_none() || s == o)
    }

    /// Whether a value of `shape` fits the type ([`TensorType::check_shape`]
    /// without building an error: it runs for every argument of every call).
    pub fn fits(&self, shape: &[usize]) -> bool {
        shape.len() == self.ndim()
            && self
                .shape
                .iter()
                .zip(shape)
                .all(|(s, &d)| s.is_none_or(|s| s == d as u64))
    }

    /// Checks a runtime shape against the static one, with PyTensor's messages.
    pub fn check_shape(&self, shape: &[usize]) -> Result<()> {
        if shape.len() != self.ndim() {
            return Err(Error::Type(format!(
                "Wrong number of dimensions: expected {}, got {} with shape {}.",
                self.ndim(),
                shape.len(),
                fmt_tuple(shape.iter().map(|d| d.to_string()))
            )));
        }
        if !self.fits(shape) {
            return Err(Error::Type(format!(
                "The type's shape ({}) is not compatible with the data's ({})",
                self.repr_shape(),
                fmt_tuple(shape.iter().map(|d| d.to_string()))
            )));
        }
        Ok(())
    }

    /// The shape as Python prints a tuple with `None`, e.g. `(None, 3)`.
    pub fn repr_shape(&self) -> String {
        fmt_tuple(
            self.shape
                .iter()
                .map(|s| s.map_or("None".to_string(), |v| v.to_string())),
        )
    }

    /// PyTensor's `repr`: `TensorType(float64, shape=(None,))`.
    pub fn repr(&self) -> String {
        format!("TensorType({}, shape={})", self.dtype, self.repr_shape())
    }
}

/// Formats items as a Python tuple: `()`, `(1,)`, `(1, 2)`.
pub fn fmt_tuple(items: impl IntoIterator<Item = String>) -> String {
    let items: Vec<String> = items.into_iter().collect();
    match items.len() {
        1 => format!("({},)", items[0]),
        _ => format!("({})", items.join(", ")),
    }
}

impl fmt::Display for TensorType {
    /// PyTensor's `str`: `Vector(float64, shape=(?,))`, `Matrix(int32, shape=(1, ?))`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.ndim() {
            0 => "Scalar".to_string(),
            1 => "Vector".to_string(),
            2 => "Matrix".to_string(),
            n => format!("Tensor{n}"),
        };
        let dims = fmt_tuple(
            self.shape
                .iter()
                .map(|s| s.map_or("?".to_string(), |v| v.to_string())),
        );
        write!(f, "{kind}({}, shape={dims})", self.dtype)
    }
}

/// A type defined outside the core (a Python subclass of `Type`).
pub trait HostType: fmt::Debug + Send + Sync + Any {
    /// Host equality (e.g. Python `==`).
    fn host_eq(&self, other: &dyn HostType) -> bool;
    /// Host hash, consistent with [`HostType::host_eq`].
    fn host_hash(&self) -> u64;
    /// The host's `str` of the type.
    fn host_str(&self) -> String;
    /// For downcasting to the host's own type.
    fn as_any(&self) -> &dyn Any;
}

/// The type of a variable.
#[derive(Clone, Debug)]
pub enum Type {
    /// A tensor.
    Tensor(TensorType),
    /// A scalar of this dtype (PyTensor's `ScalarType`): what the variables
    /// of scalar graphs hold, at run time a 0-d tensor.
    Scalar(DType),
    /// A gradient that is undefined, with the reason (`NullType`).
    Null(Arc<str>),
    /// The gradient marker for "not connected" (`DisconnectedType`).
    Disconnected,
    /// A host-defined type.
    Host(Arc<dyn HostType>),
}

impl Type {
    /// The tensor type, if this is one.
    pub fn as_tensor(&self) -> Option<&TensorType> {
        match self {
            Type::Tensor(t) => Some(t),
            _ => None,
        }
    }

    /// The dtype of a scalar type.
    pub fn as_scalar(&self) -> Option<DType> {
        match self {
            Type::Scalar(d) => Some(*d),
            _ => None,
        }
    }

    /// Whether this is a tensor type of dtype bool.
    pub fn is_bool_tensor(&self) -> bool {
        self.as_tensor().is_some_and(|t| t.dtype == DType::Bool)
    }

    /// The tensor type, or a `TypeError` naming what was expected.
    pub fn expect_tensor(&self, what: &str) -> Result<&TensorType> {
        self.as_tensor().ok_or_else(|| {
            Error::Type(format!(
                "{what} must be a tensor, got a variable of type {self}"
            ))
        })
    }

    /// `self.is_super(other)`: can every value of `other` be a value of `self`.
    pub fn is_super(&self, other: &Type) -> bool {
        match (self, other) {
            (Type::Tensor(a), Type::Tensor(b)) => a.is_super(b),
            _ => self == other,
        }
    }

    /// `self.in_same_class(other)`.
    pub fn in_same_class(&self, other: &Type) -> bool {
        match (self, other) {
            (Type::Tensor(a), Type::Tensor(b)) => a.in_same_class(b),
            _ => self == other,
        }
    }
}

impl PartialEq for Type {
    fn eq(&self, other: &Type) -> bool {
        match (self, other) {
            (Type::Tensor(a), Type::Tensor(b)) => a == b,
            (Type::Scalar(a), Type::Scalar(b)) => a == b,
            // PyTensor's NullTypes compare equal whatever their reason.
            (Type::Null(_), Type::Null(_)) => true,
            (Type::Disconnected, Type::Disconnected) => true,
            (Type::Host(a), Type::Host(b)) => a.host_eq(b.as_ref()),
            _ => false,
        }
    }
}

impl Eq for Type {}

impl Hash for Type {
    fn hash<H: Hasher>(&self, state: &mut H) {
        std::mem::discriminant(self).hash(state);
        match self {
            Type::Tensor(t) => t.hash(state),
            Type::Scalar(d) => d.hash(state),
            Type::Host(h) => h.host_hash().hash(state),
            Type::Null(_) | Type::Disconnected => {}
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Tensor(t) => t.fmt(f),
            // PyTensor's `str(ScalarType)` is its dtype.
            Type::Scalar(d) => d.fmt(f),
            Type::Null(_) => f.write_str("NullType"),
            Type::Disconnected => f.write_str("DisconnectedType"),
            Type::Host(h) => f.write_str(&h.host_str()),
        }
    }
}

impl From<TensorType> for Type {
    fn from(t: TensorType) -> Self {
        Type::Tensor(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::testing::tt;
    use DType::*;

    #[test]
    fn string_forms() {
        assert_eq!(
            tt(Float64, &[None]).to_string(),
            "Vector(float64, shape=(?,))"
        );
        assert_eq!(
            tt(Int32, &[Some(1), None]).to_string(),
            "Matrix(int32, shape=(1, ?))"
        );
        assert_eq!(tt(Float64, &[]).to_string(), "Scalar(float64, shape=())");
        assert_eq!(
            tt(Float32, &[Some(2), None, Some(1)]).to_string(),
            "Tensor3(float32, shape=(2, ?, 1))"
        );
        assert_eq!(
            tt(Float64, &[None]).repr(),
            "TensorType(float64, shape=(None,))"
        );
    }

    #[test]
    fn super_and_class() {
        let any = tt(Float64, &[None, None]);
        let fixed = tt(Float64, &[Some(3), Some(1)]);
        assert!(any.is_super(&fixed));
        assert!(!fixed.is_super(&any));
        assert!(!any.in_same_class(&fixed));
        assert!(any.in_same_class(&tt(Float64, &[Some(3), Some(4)])));
        assert_eq!(Type::Null("a".into()), Type::Null("b".into()));
        let s = Type::Scalar(Float32);
        assert_eq!(
            (s.to_string(), s.as_scalar()),
            ("float32".into(), Some(Float32))
        );
        assert!(s.is_super(&Type::Scalar(Float32)) && !s.is_super(&Type::Scalar(Float64)));
        assert_ne!(s, Type::Tensor(tt(Float32, &[])));
    }

    #[test]
    fn shape_check_messages() {
        let t = tt(Float64, &[Some(3)]);
        assert_eq!(
            t.check_shape(&[2]).unwrap_err().to_string(),
            "The type's shape ((3,)) is not compatible with the data's ((2,))"
        );
        assert_eq!(
            t.check_shape(&[2, 2]).unwrap_err().to_string(),
            "Wrong number of dimensions: expected 1, got 2 with shape (2, 2)."
        );
        assert!(t.check_shape(&[3]).is_ok());
    }
}
