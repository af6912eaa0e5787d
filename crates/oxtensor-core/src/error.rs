//! The core's one error type. Each variant is a kind that Python must tell
//! apart; the PyO3 crate maps them to exception classes in one place.

use std::fmt;

/// Everything that can go wrong in the core.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A value or variable of the wrong type (`TypeError` in Python).
    #[error("{0}")]
    Type(String),
    /// A value that is of the right type but unusable (`ValueError`).
    #[error("{0}")]
    Value(String),
    /// Shapes that cannot work together (`ValueError`).
    #[error("{0}")]
    Shape(String),
    /// A matrix a linear algebra routine cannot factor or invert, such as
    /// an exactly singular one (NumPy's `LinAlgError`, a `ValueError`).
    #[error("{0}")]
    LinAlg(String),
    /// An array too large to address or to allocate (`MemoryError`): a
    /// size past `isize::MAX` bytes, or an allocation the system refused.
    #[error("{0}")]
    Memory(String),
    /// An index or key that does not exist (`IndexError`/`KeyError`).
    #[error("{0}")]
    Index(String),
    /// A graph change that breaks the graph's invariants (`InconsistencyError`).
    #[error("{0}")]
    Inconsistency(String),
    /// A variable the graph needs but was not given (`MissingInputError`).
    #[error("{0}")]
    MissingInput(String),
    /// An input a function was given but does not need (`UnusedInputError`).
    #[error("{0}")]
    UnusedInput(String),
    /// A feature that is already attached (`AlreadyThere`).
    #[error("{0}")]
    AlreadyThere(String),
    /// A request that contradicts how a function is being built, such as
    /// `givens` replacing one of the function's own inputs (`RuntimeError`,
    /// as PyTensor raises it).
    #[error("{0}")]
    Runtime(String),
    /// A run-time check that a graph asserts failed, such as `SpecifyShape`
    /// meeting a value of another shape (`AssertionError`, as PyTensor).
    #[error("{0}")]
    Assertion(String),
    /// A graph is not what its own bookkeeping says (`Exception` in PyTensor).
    #[error("{0}")]
    Integrity(String),
    /// A gradient that does not reach the requested variable.
    #[error("{0}")]
    Disconnected(String),
    /// A method the op does not implement (`NotImplementedError`), e.g. a
    /// missing `grad`, which the contract says to report this way.
    #[error("{0}")]
    NotImplemented(String),
    /// A gradient that is undefined (`NullType`) reached a requested
    /// variable (`NullTypeGradError`, a `TypeError`).
    #[error("{0}")]
    NullGradient(String),
    /// Something oxtensor does not support (yet); never a silent stub.
    #[error("not supported: {0}")]
    OutOfScope(String),
    /// An error raised by a host callback (a Python `Op`, feature, ...),
    /// carried unchanged so the host can re-raise the same exception.
    #[error("{0}")]
    Host(Box<dyn HostError>),
    /// A check of DebugMode (or of the view-map check) failed: an op did
    /// not do what it declares (`BadDestroyMap`, `BadViewMap`, ...).
    #[error("{0}")]
    DebugMode(Box<crate::compile::debug::DebugModeError>),
    /// Another error, with the node it happened in.
    #[error("{source}\nApply node that caused the error: {node}")]
    Node {
        /// The node's printed form, e.g. `Add(x, y)`.
        node: String,
        /// What went wrong.
        source: Box<Error>,
    },
    /// Another error, raised while a rewriter worked on a node.
    #[error("{source}\nRewriter that failed: {rewriter}, on node {node}")]
    Rewrite {
        /// The rewriter's name, e.g. `local_mul_canonizer`.
        rewriter: String,
        /// The node's printed form.
        node: String,
        /// What went wrong.
        source: Box<Error>,
    },
}

/// An error produced by host code (e.g. a Python exception), opaque to the core.
pub trait HostError: fmt::Debug + fmt::Display + Send + Sync + std::any::Any {
    /// For downcasting back to the host's own error type.
    fn as_any(&self) -> &dyn std::any::Any;
}

/// The core's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Adds the node context to this error.
    pub fn at_node(self, node: impl Into<String>) -> Self {
        Error::Node {
            node: node.into(),
            source: Box::new(self),
        }
    }

    /// Adds the rewriter and node context to this error.
    pub fn at_rewrite(self, rewriter: impl Into<String>, node: impl Into<String>) -> Self {
        Error::Rewrite {
            rewriter: rewriter.into(),
            node: node.into(),
            source: Box::new(self),
        }
    }

    /// The innermost error, below any `Node` or `Rewrite` context.
    pub fn root(&self) -> &Error {
        match self {
            Error::Node { source, .. } | Error::Rewrite { source, .. } => source.root(),
            other => other,
        }
    }
}

/// Returns early with an [`Error`] of the given kind and a formatted message.
///
/// `bail!(Type: "expected {a}, got {b}")`
#[macro_export]
macro_rules! bail {
    ($kind:ident: $($arg:tt)*) => {
        return Err($crate::error::Error::$kind(format!($($arg)*)))
    };
}

/// Returns early with an [`Error`] of the given kind unless the condition holds.
///
/// `ensure!(a == b, Shape: "mismatch {a} {b}")`
#[macro_export]
macro_rules! ensure {
    ($cond:expr, $kind:ident: $($arg:tt)*) => {
        if !$cond {
            $crate::bail!($kind: $($arg)*);
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fails(flag: bool) -> Result<()> {
        ensure!(flag, Shape: "bad shape {}", 3);
        Ok(())
    }

    #[test]
    fn ensure_and_context() {
        assert!(fails(true).is_ok());
        let err = fails(false).unwrap_err().at_node("Add(x, y)");
        assert_eq!(
            err.to_string(),
            "bad shape 3\nApply node that caused the error: Add(x, y)"
        );
        assert!(matches!(err.root(), Error::Shape(_)));
    }
}
