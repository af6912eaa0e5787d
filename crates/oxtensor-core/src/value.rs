//! Runtime values: what variables hold while a graph runs (and what
//! constants hold): tensors, or opaque host objects.

use crate::error::{Error, Result};
use crate::tensor::Tensor;
use std::any::Any;
use std::fmt;
use std::sync::Arc;

/// A value of a host type (e.g. a Python object), opaque to the core.
pub trait HostValue: fmt::Debug + Send + Sync + Any {
    /// Host equality of values (for merging constants).
    fn host_eq(&self, other: &dyn HostValue) -> bool;
    /// For downcasting.
    fn as_any(&self) -> &dyn Any;
    /// A copy sharing nothing with this value (`DeepCopyOp`); hosts whose
    /// values can be copied say how.
    fn deep_copy(&self) -> Result<Arc<dyn HostValue>> {
        Err(Error::Type(format!(
            "DeepCopyOp cannot copy the host value {self:?}"
        )))
    }
}

/// A runtime value.
#[derive(Clone, Debug)]
pub enum Value {
    /// A tensor.
    Tensor(Tensor),
    /// A host value.
    Host(Arc<dyn HostValue>),
}

impl Value {
    /// The tensor, or a `TypeError` saying what was found instead.
    pub fn tensor(&self) -> Result<&Tensor> {
        match self {
            Value::Tensor(t) => Ok(t),
            Value::Host(h) => Err(Error::Type(format!(
                "expected a tensor, got a host value {h:?}"
            ))),
        }
    }
}

impl From<Tensor> for Value {
    fn from(t: Tensor) -> Self {
        Value::Tensor(t)
    }
}
