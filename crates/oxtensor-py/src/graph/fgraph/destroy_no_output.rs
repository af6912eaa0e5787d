//! `NoOutputFromInplace` from Python: attaching the Python feature attaches
//! the core check (`graph/destroy/no_output.rs`) to the graph's core, so
//! core passes (the inplace phase) are refused by it too.

use super::PyFunctionGraph;
use crate::errors::IntoPyResult;
use oxtensor_core::graph::destroy::NoOutputFromInplace;
use pyo3::prelude::*;

/// Attaches the core check protecting these output positions (all when `None`).
#[pyfunction]
#[pyo3(signature = (fgraph, protected_out_ids = None))]
pub fn attach_no_output_from_inplace(
    fgraph: &Bound<'_, PyFunctionGraph>,
    protected_out_ids: Option<Vec<usize>>,
) -> PyResult<()> {
    let feature = NoOutputFromInplace::new(protected_out_ids);
    fgraph
        .borrow_mut()
        .core_mut()?
        .attach_feature(Box::new(feature))
        .py()
}

/// Detaches the core check protecting these output positions, if attached.
#[pyfunction]
#[pyo3(signature = (fgraph, protected_out_ids = None))]
pub fn detach_no_output_from_inplace(
    fgraph: &Bound<'_, PyFunctionGraph>,
    protected_out_ids: Option<Vec<usize>>,
) -> PyResult<()> {
    let want = NoOutputFromInplace::new(protected_out_ids);
    let mut this = fgraph.borrow_mut();
    let core = this.core_mut()?;
    let found = core
        .features()
        .iter()
        .position(|f| f.as_any().downcast_ref::<NoOutputFromInplace>() == Some(&want));
    if let Some(i) = found {
        core.remove_feature(i).py()?;
    }
    Ok(())
}
