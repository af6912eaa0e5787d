//! Rewriting from Python: rewriters written in Python run by the core's
//! drivers (through the bridge to the Python graph), the core's passes and
//! databases seen from Python, and their run profiles.

/// A rewriter base class of `oxtensor.graph.rewriting.basic`: Python code
/// subclasses it, and built-in rewriters are instances holding their core
/// rewriter (`inner`, a `dyn $core`). The constructor takes any arguments,
/// for the subclasses' own `__init__`.
macro_rules! rewriter_base_class {
    ($(#[doc = $doc:literal])* $py:ident, $name:literal, $core:ident) => {
        $(#[doc = $doc])*
        #[pyclass(subclass, module = "oxtensor.graph.rewriting.basic", name = $name)]
        #[derive(Default)]
        pub struct $py {
            pub(crate) inner: Option<std::sync::Arc<dyn $core>>,
        }

        #[pymethods]
        impl $py {
            #[new]
            #[pyo3(signature = (*_args, **_kwargs))]
            fn new(
                _args: &Bound<'_, pyo3::types::PyTuple>,
                _kwargs: Option<&Bound<'_, pyo3::types::PyDict>>,
            ) -> Self {
                Self::default()
            }
        }
    };
}
use rewriter_base_class;

pub mod bridge;
pub mod db;
pub mod failure;
pub mod fold;
pub mod graph;
pub mod node;
pub mod pattern;
pub mod profile;
pub mod verbose;
