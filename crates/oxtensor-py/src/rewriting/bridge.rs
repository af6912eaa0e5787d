//! The bridge between a core rewrite run and Python. A core pass works on
//! a core graph it owns; a rewriter written in Python works on the Python
//! `FunctionGraph` and its `Apply` objects. `HostBridge`, a feature on the
//! core graph, names the Python graph object; while a Python rewriter runs,
//! the core graph is moved into that object (and back out after), and the
//! Python objects are brought up to date with what the core changed.

use super::fold::PyHostFolder;
use crate::errors::{from_pyerr, IntoPyResult};
use crate::graph::fgraph::events::EventLog;
use crate::graph::fgraph::PyFunctionGraph;
use oxtensor_core::error::Result as CoreResult;
use oxtensor_core::graph::{Feature, FunctionGraph};
use oxtensor_core::rewrite::{
    rewrite_graph, GraphRewriter, HostFolding, OnError, RewriteProfile, RewriteSettings, RunContext,
};
use pyo3::prelude::*;
use std::any::Any;

/// The Python graph object a core graph belongs to.
pub struct HostBridge {
    shell: Py<PyFunctionGraph>,
}

impl HostBridge {
    /// A bridge to `shell`.
    pub fn new(shell: &Bound<'_, PyFunctionGraph>) -> Self {
        HostBridge {
            shell: shell.clone().unbind(),
        }
    }

    /// Removes the bridge from `fg` (before `fg` goes back into its
    /// Python object, which would otherwise hold itself).
    pub fn detach(fg: &mut FunctionGraph) -> CoreResult<()> {
        fg.remove_feature_of::<HostBridge>().map(|_| ())
    }
}

impl Feature for HostBridge {
    fn name(&self) -> &str {
        "HostBridge"
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// Runs `f` with `fg` inside its Python graph object, whose Python objects
/// are first brought up to date; `fg` comes back whatever `f` did.
pub fn with_python<T>(
    py: Python<'_>,
    fg: &mut FunctionGraph,
    f: impl FnOnce(&Bound<'_, PyFunctionGraph>) -> PyResult<T>,
) -> CoreResult<T> {
    let Some(shell) = fg.feature::<HostBridge>().map(|b| b.shell.clone_ref(py)) else {
        return with_new_shell(py, fg, f);
    };
    let shell = shell.bind(py);
    let owned = std::mem::take(fg);
    let result = PyFunctionGraph::put_core(shell, owned).and_then(|()| f(shell));
    *fg = shell.borrow_mut().take_core().map_err(from_pyerr)?;
    result.map_err(from_pyerr)
}

/// [`with_python`] for a graph the core built and compiles on its own (a
/// `Jacobian`'s inner graph, say): it gets a Python graph object for the
/// length of `f`, so rewriters registered from Python run there too.
fn with_new_shell<T>(
    py: Python<'_>,
    fg: &mut FunctionGraph,
    f: impl FnOnce(&Bound<'_, PyFunctionGraph>) -> PyResult<T>,
) -> CoreResult<T> {
    let (shell, log) = PyFunctionGraph::shell(py, Default::default()).map_err(from_pyerr)?;
    fg.attach_feature(log)?;
    fg.attach_feature(Box::new(HostBridge::new(&shell)))?;
    let owned = std::mem::take(fg);
    let result = PyFunctionGraph::adopt(&shell, owned).and_then(|()| f(&shell));
    *fg = shell.borrow_mut().take_core().map_err(from_pyerr)?;
    HostBridge::detach(fg)?;
    fg.remove_feature_of::<EventLog>()?;
    result.map_err(from_pyerr)
}

/// Runs `f` on the core graph of `fgraph`, taken out of it and bridged
/// back to it for rewriters written in Python (unless already bridged),
/// then put back whatever `f` did.
pub fn with_core<T>(
    fgraph: &Bound<'_, PyFunctionGraph>,
    f: impl FnOnce(&mut FunctionGraph) -> CoreResult<T>,
) -> PyResult<T> {
    let mut fg = fgraph.borrow_mut().take_core()?;
    let attached = fg.feature::<HostBridge>().is_none();
    let mut result = Ok(());
    if attached {
        result = fg
            .attach_feature(Box::new(HostBridge::new(fgraph)))
            .and_then(|()| fg.attach_feature(Box::new(HostFolding(Box::new(PyHostFolder)))));
    }
    let result = result.and_then(|()| f(&mut fg));
    let detached = if attached {
        HostBridge::detach(&mut fg).and_then(|()| fg.remove_feature_of::<HostFolding>().map(|_| ()))
    } else {
        Ok(())
    };
    PyFunctionGraph::put_core(fgraph, fg)?;
    let out = result.py()?;
    detached.py()?;
    Ok(out)
}

/// The run settings `oxtensor.config` gives (`on_opt_error`,
/// `optdb__max_use_ratio`), as `function` passes them to a compilation.
fn settings_from_config(py: Python<'_>) -> PyResult<RewriteSettings> {
    let config = py.import("oxtensor.configdefaults")?.getattr("config")?;
    let on_error: String = config.getattr("on_opt_error")?.extract()?;
    Ok(RewriteSettings {
        on_error: on_error.parse::<OnError>().py()?,
        max_use_ratio: config.getattr("optdb__max_use_ratio")?.extract()?,
        log: super::verbose::log_from_config(py)?,
    })
}

/// Runs a core pass on a Python graph (see [`with_core`]) with the
/// settings of `oxtensor.config`; the run's warnings become Python warnings.
pub fn run_pass(
    pass: &dyn GraphRewriter,
    fgraph: &Bound<'_, PyFunctionGraph>,
) -> PyResult<RewriteProfile> {
    let mut run = RunContext::new(settings_from_config(fgraph.py())?);
    with_core(fgraph, |fg| rewrite_graph(pass, fg, &mut run))?;
    crate::compile::warn_all(fgraph.py(), &run.warnings)?;
    Ok(run.profile)
}
