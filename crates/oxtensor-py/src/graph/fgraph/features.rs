//! Features of a `FunctionGraph` written in Python (attached, removed,
//! called back) and the checks they and the core run: `validate`,
//! `consistent`, `check_integrity`, checkpoints, `execute_callbacks`.

use super::PyFunctionGraph;
use crate::errors::exceptions::AlreadyThere;
use crate::errors::IntoPyResult;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use std::time::Instant;

impl PyFunctionGraph {
    /// The features written in Python, in attach order.
    pub(crate) fn python_features(&self, py: Python<'_>) -> Vec<Py<PyAny>> {
        self.features.iter().map(|f| f.clone_ref(py)).collect()
    }

    /// Sets the feature list without calling `on_attach` (unpickling: the
    /// features' own state already describes this graph).
    pub(crate) fn set_python_features(&mut self, features: Vec<Py<PyAny>>) {
        self.features = features;
    }
}

#[pymethods]
impl PyFunctionGraph {
    /// Attaches a feature; one whose `on_attach` raises `AlreadyThere` is skipped.
    pub(crate) fn attach_feature(slf: &Bound<'_, Self>, feature: Bound<'_, PyAny>) -> PyResult<()> {
        let py = slf.py();
        for f in &slf.borrow().features {
            if f.bind(py).eq(&feature)? {
                return Ok(());
            }
        }
        if feature.hasattr("on_attach")? {
            if let Err(e) = feature.call_method1("on_attach", (slf,)) {
                if e.is_instance_of::<AlreadyThere>(py) {
                    return Ok(());
                }
                return Err(e);
            }
        }
        slf.borrow_mut().features.push(feature.unbind());
        Ok(())
    }

    /// Detaches a feature, calling its `on_detach`.
    pub(crate) fn remove_feature(slf: &Bound<'_, Self>, feature: Bound<'_, PyAny>) -> PyResult<()> {
        let py = slf.py();
        let pos = slf
            .borrow()
            .features
            .iter()
            .position(|f| f.bind(py).is(&feature));
        let Some(pos) = pos else { return Ok(()) };
        slf.borrow_mut().features.remove(pos);
        if feature.hasattr("on_detach")? {
            feature.call_method1("on_detach", (slf,))?;
        }
        Ok(())
    }

    /// Calls `name(self, *args)` on every feature that has it, in attach
    /// order, adding each call's seconds to `execute_callbacks_times`
    /// (`{feature: seconds}`).
    #[pyo3(signature = (name, *args))]
    pub(crate) fn execute_callbacks(
        slf: &Bound<'_, Self>,
        name: &str,
        args: &Bound<'_, PyTuple>,
    ) -> PyResult<()> {
        let py = slf.py();
        let times = Self::execute_callbacks_times(slf)?;
        let mut all = vec![slf.clone().into_any()];
        all.extend(args.iter());
        let all = PyTuple::new(py, all)?;
        for f in slf.borrow().python_features(py) {
            let f = f.bind(py);
            if !f.hasattr(name)? {
                continue;
            }
            let start = Instant::now();
            f.call_method1(name, &all)?;
            let spent = start.elapsed().as_secs_f64();
            let before: f64 = match times.get_item(f)? {
                Some(t) => t.extract()?,
                None => 0.0,
            };
            times.set_item(f, before + spent)?;
        }
        Ok(())
    }

    /// `{feature: seconds}` spent in `execute_callbacks` (kept in the
    /// instance dict, so it survives pickling).
    #[getter]
    pub(crate) fn execute_callbacks_times<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let dict = slf.getattr("__dict__")?;
        let times = dict.call_method1(
            "setdefault",
            ("_execute_callbacks_times", PyDict::new(slf.py())),
        )?;
        Ok(times.cast_into::<PyDict>()?)
    }

    /// A token for `revert`.
    pub(crate) fn checkpoint(&self) -> PyResult<usize> {
        Ok(self.core()?.checkpoint())
    }

    /// Undoes the input changes made since `checkpoint`.
    pub(crate) fn revert(slf: &Bound<'_, Self>, checkpoint: usize) -> PyResult<()> {
        Self::mutate(slf, |this| this.core_mut()?.revert(checkpoint).py())
    }

    /// Asks every feature (core and Python) to accept the current graph.
    pub(crate) fn validate(slf: &Bound<'_, Self>) -> PyResult<()> {
        Self::mutate(slf, |this| this.core_mut()?.validate().py())?;
        let py = slf.py();
        let features = slf.borrow().python_features(py);
        for f in features {
            if f.bind(py).hasattr("on_validate")? {
                f.bind(py).call_method1("on_validate", (slf,))?;
            }
        }
        Ok(())
    }

    /// Whether `validate` passes.
    pub(crate) fn consistent(slf: &Bound<'_, Self>) -> PyResult<bool> {
        match Self::validate(slf) {
            Ok(()) => Ok(true),
            Err(e)
                if e.is_instance_of::<crate::errors::exceptions::InconsistencyError>(slf.py()) =>
            {
                Ok(false)
            }
            Err(e) => Err(e),
        }
    }

    /// Checks that clients, nodes and variables agree; raises `Exception` if not.
    pub(crate) fn check_integrity(slf: &Bound<'_, Self>) -> PyResult<()> {
        let py = slf.py();
        slf.borrow().core()?.check_integrity().py()?;
        let this = slf.borrow();
        let fg = this.core()?;
        for n in fg.apply_nodes() {
            let node = this.memo.node(py, n)?;
            for (i, inp) in node.getattr("inputs")?.try_iter()?.enumerate() {
                if this.memo.var_id(&inp?) != Some(fg.graph().node(n).inputs[i]) {
                    return Err(pyo3::exceptions::PyException::new_err(format!(
                        "Inconsistent clients list: input {i} of {} differs from the graph's",
                        node.str()?
                    )));
                }
            }
        }
        Ok(())
    }
}
