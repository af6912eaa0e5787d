//! Changing a `FunctionGraph` from Python: replacing variables, changing
//! a node's input, importing, adding and removing nodes, inputs and outputs,
//! constant folding. Each runs in the core, then flushes the change log.

use super::events::reason_str;
use super::PyFunctionGraph;
use crate::errors::IntoPyResult;
use crate::graph::variable::PyVariable;
use oxtensor_core::graph::{Client, ReplaceLog};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple, PyWeakrefReference};

#[pymethods]
impl PyFunctionGraph {
    /// Runs constant folding on the graph (what compiling does); returns
    /// the number of nodes folded.
    pub fn _constant_fold(slf: &Bound<'_, Self>) -> PyResult<usize> {
        Self::mutate(slf, |this| {
            oxtensor_core::rewrite::constant_fold(this.core_mut()?).py()
        })
    }

    /// Replaces every use of `var` by `new_var` (which must have a compatible type).
    #[pyo3(signature = (var, new_var, reason = None, verbose = None, import_missing = false))]
    pub(crate) fn replace(
        slf: &Bound<'_, Self>,
        var: Bound<'_, PyAny>,
        new_var: Bound<'_, PyAny>,
        reason: Option<Bound<'_, PyAny>>,
        verbose: Option<bool>,
        import_missing: bool,
    ) -> PyResult<()> {
        let new_var = var
            .getattr("type")?
            .call_method1("filter_variable", (&new_var, true))?;
        let reason = reason_str(&reason)?;
        if wants_line(slf.py(), verbose, &reason)? {
            // Python's `str` of each, not the arena's names: a variable
            // class may define its own, and the variable need not be in
            // the graph (PyTensor prints the line before looking).
            let line = ReplaceLog::line(
                &reason,
                &var.str()?.to_string(),
                &var.getattr("owner")?.str()?.to_string(),
                &new_var.str()?.to_string(),
                &new_var.getattr("owner")?.str()?.to_string(),
            );
            write_stdout(slf.py(), &format!("{line}\n"))?;
        }
        Self::mutate(slf, |this| {
            let Some(old) = this
                .memo
                .var_id(&var)
                .filter(|v| this.fg.as_ref().is_some_and(|fg| fg.has_var(*v)))
            else {
                return Ok(());
            };
            let new = this.arena_var(&new_var)?;
            this.core_mut()?
                .replace(old, new, &reason, import_missing)
                .py()
        })
    }

    /// `replace` for each `(var, new_var)` pair.
    #[pyo3(signature = (pairs, reason = None, verbose = None, **_kwargs))]
    pub(crate) fn replace_all(
        slf: &Bound<'_, Self>,
        pairs: Bound<'_, PyAny>,
        reason: Option<Bound<'_, PyAny>>,
        verbose: Option<bool>,
        _kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<()> {
        for pair in pairs.try_iter()? {
            let (v, n): (Bound<'_, PyAny>, Bound<'_, PyAny>) = pair?.extract()?;
            Self::replace(slf, v, n, reason.clone(), verbose, false)?;
        }
        Ok(())
    }

    /// `replace_all`, then `validate`; everything is reverted if either
    /// fails. With `verbose`, each replacement and a failed validation are
    /// printed.
    #[pyo3(signature = (replacements, reason = None, verbose = None, **_kwargs))]
    pub(crate) fn replace_all_validate(
        slf: &Bound<'_, Self>,
        replacements: Bound<'_, PyAny>,
        reason: Option<Bound<'_, PyAny>>,
        verbose: Option<bool>,
        _kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<usize> {
        let pairs = PyList::new(
            slf.py(),
            replacements.try_iter()?.collect::<PyResult<Vec<_>>>()?,
        )?;
        let chk = Self::checkpoint(&slf.borrow())?;
        if let Err(err) =
            Self::replace_all(slf, pairs.clone().into_any(), reason.clone(), verbose, None)
        {
            Self::revert(slf, chk)?;
            return Err(err);
        }
        if let Err(err) = Self::validate(slf) {
            if verbose.unwrap_or(false) {
                print_validate_failure(slf.py(), &pairs, &reason, &err)?;
            }
            Self::revert(slf, chk)?;
            return Err(err);
        }
        Ok(chk)
    }

    /// `replace_all_validate` for one pair.
    #[pyo3(signature = (r, new_r, reason = None))]
    pub(crate) fn replace_validate(
        slf: &Bound<'_, Self>,
        r: Bound<'_, PyAny>,
        new_r: Bound<'_, PyAny>,
        reason: Option<Bound<'_, PyAny>>,
    ) -> PyResult<usize> {
        let pairs = PyList::new(slf.py(), [PyTuple::new(slf.py(), [r, new_r])?])?;
        Self::replace_all_validate(slf, pairs.into_any(), reason, None, None)
    }

    /// Makes input `i` of `node` (or output `i` when `node` is `"output"`) read `new_var`.
    #[pyo3(signature = (node, i, new_var, reason = None, import_missing = false, check = true))]
    pub(crate) fn change_node_input(
        slf: &Bound<'_, Self>,
        node: Bound<'_, PyAny>,
        i: usize,
        new_var: Bound<'_, PyAny>,
        reason: Option<Bound<'_, PyAny>>,
        import_missing: bool,
        check: bool,
    ) -> PyResult<()> {
        let reason = reason_str(&reason)?;
        Self::mutate(slf, |this| {
            let client = if node.extract::<String>().is_ok_and(|s| s == "output") {
                Client::Output(i)
            } else {
                Client::Node(this.node_id(&node)?, i)
            };
            let new = this.arena_var(&new_var)?;
            this.core_mut()?
                .change_node_input(client, new, &reason, import_missing, check)
                .py()
        })
    }

    /// Brings a variable (and what computes it) into the graph.
    #[pyo3(signature = (var, reason = None, import_missing = false))]
    pub(crate) fn import_var(
        slf: &Bound<'_, Self>,
        var: Bound<'_, PyAny>,
        reason: Option<Bound<'_, PyAny>>,
        import_missing: bool,
    ) -> PyResult<()> {
        let reason = reason_str(&reason)?;
        Self::mutate(slf, |this| {
            let id = this.arena_var(&var)?;
            this.core_mut()?
                .import_var(id, &reason, import_missing)
                .py()
        })
    }

    /// Brings a node (and what it needs) into the graph.
    #[pyo3(signature = (apply_node, check = true, reason = None, import_missing = false))]
    pub(crate) fn import_node(
        slf: &Bound<'_, Self>,
        apply_node: Bound<'_, PyAny>,
        check: bool,
        reason: Option<Bound<'_, PyAny>>,
        import_missing: bool,
    ) -> PyResult<()> {
        let _ = check;
        let reason = reason_str(&reason)?;
        Self::mutate(slf, |this| {
            let first = apply_node.getattr("outputs")?.get_item(0)?;
            this.arena_var(&first)?;
            let n = this
                .memo
                .node_id(&apply_node)
                .ok_or_else(|| PyValueError::new_err("node was not imported"))?;
            this.core_mut()?
                .import_node(n, &reason, import_missing)
                .py()
        })
    }

    /// Declares another input.
    #[pyo3(signature = (var, check = true))]
    pub(crate) fn add_input(
        slf: &Bound<'_, Self>,
        var: Bound<'_, PyAny>,
        check: bool,
    ) -> PyResult<()> {
        let _ = check;
        Self::mutate(slf, |this| {
            let id = this.arena_var(&var)?;
            this.core_mut()?.add_input(id).py()
        })?;
        let weak = PyWeakrefReference::new(slf)?.into_any().unbind();
        var.cast::<PyVariable>()?.borrow_mut().fgraph = Some(weak);
        Ok(())
    }

    /// Appends an output.
    #[pyo3(signature = (var, reason = None, import_missing = false))]
    pub(crate) fn add_output(
        slf: &Bound<'_, Self>,
        var: Bound<'_, PyAny>,
        reason: Option<Bound<'_, PyAny>>,
        import_missing: bool,
    ) -> PyResult<()> {
        let _ = import_missing;
        let reason = reason_str(&reason)?;
        Self::mutate(slf, |this| {
            let id = this.arena_var(&var)?;
            this.core_mut()?.add_output(id, &reason).py()
        })
    }

    /// Removes `node`, the nodes and outputs depending on it, then the
    /// producers left unused.
    #[pyo3(signature = (node, reason = None))]
    pub(crate) fn remove_node(
        slf: &Bound<'_, Self>,
        node: Bound<'_, PyAny>,
        reason: Option<Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let reason = reason_str(&reason)?;
        Self::mutate(slf, |this| {
            let n = this.node_id(&node)?;
            this.core_mut()?.remove_node(n, &reason).py()
        })
    }

    /// Removes input `idx` and everything that uses it.
    #[pyo3(signature = (idx, reason = None))]
    pub(crate) fn remove_input(
        slf: &Bound<'_, Self>,
        idx: usize,
        reason: Option<Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let reason = reason_str(&reason)?;
        Self::mutate(slf, |this| this.core_mut()?.remove_input(idx, &reason).py())
    }

    /// Removes one client, `(node, i)` or `("output", i)`, of `var`; a
    /// node whose outputs are left without clients is removed, recursively
    /// (a client that is not listed is ignored, as in PyTensor). With
    /// `remove_if_empty` the variables left without clients leave `clients`.
    #[pyo3(signature = (var, client_to_remove, reason = None, remove_if_empty = false))]
    pub(crate) fn remove_client(
        slf: &Bound<'_, Self>,
        var: Bound<'_, PyAny>,
        client_to_remove: Bound<'_, PyAny>,
        reason: Option<Bound<'_, PyAny>>,
        remove_if_empty: bool,
    ) -> PyResult<()> {
        let reason = reason_str(&reason)?;
        let (node, i): (Bound<'_, PyAny>, usize) = client_to_remove.extract()?;
        Self::mutate(slf, |this| {
            let v = this.memo.var_id(&var).ok_or_else(|| {
                PyValueError::new_err(format!("{} is not in this FunctionGraph", var))
            })?;
            let client = if node.extract::<String>().is_ok_and(|s| s == "output") {
                Client::Output(i)
            } else {
                // A node already removed may still be named (PyTensor allows it).
                let n = this.memo.node_id(&node).ok_or_else(|| {
                    PyValueError::new_err(format!("{} is not in this FunctionGraph", node))
                })?;
                Client::Node(n, i)
            };
            this.core_mut()?
                .remove_client(v, client, &reason, remove_if_empty)
                .py()
        })
    }

    /// Removes output `idx`.
    #[pyo3(signature = (idx, reason = None))]
    pub(crate) fn remove_output(
        slf: &Bound<'_, Self>,
        idx: usize,
        reason: Option<Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let reason = reason_str(&reason)?;
        Self::mutate(slf, |this| {
            this.core_mut()?.remove_output(idx, &reason).py()
        })
    }
}

/// Whether `replace` prints its line: `verbose`, else
/// `config.optimizer_verbose`, unless the reason is one of
/// `config.optimizer_verbose_ignore`. An explicit `verbose=False` reads
/// no config: a caller that turns the line off pays no import.
fn wants_line(py: Python<'_>, verbose: Option<bool>, reason: &str) -> PyResult<bool> {
    if verbose == Some(false) {
        return Ok(false);
    }
    let config = py.import("oxtensor.configdefaults")?.getattr("config")?;
    let on = match verbose {
        Some(v) => v,
        None => config.getattr("optimizer_verbose")?.extract()?,
    };
    Ok(on
        && !crate::rewriting::verbose::ignored(&config)?
            .iter()
            .any(|r| r == reason))
}

/// Writes through `sys.stdout`, as `print` would, so redirection works.
fn write_stdout(py: Python<'_>, line: &str) -> PyResult<()> {
    py.import("sys")?
        .getattr("stdout")?
        .call_method1("write", (line,))?;
    Ok(())
}

/// PyTensor's verbose line for a replacement that validation refused,
/// naming the first replaced variable.
fn print_validate_failure(
    py: Python<'_>,
    pairs: &Bound<'_, PyList>,
    reason: &Option<Bound<'_, PyAny>>,
    err: &PyErr,
) -> PyResult<()> {
    let Ok(first) = pairs.get_item(0) else {
        return Ok(());
    };
    let var = first.get_item(0)?;
    let line = format!(
        "rewriting: validate failed on node {}.\n Reason: {}, {}\n",
        var.str()?,
        reason_str(reason)?,
        err.value(py).str()?
    );
    write_stdout(py, &line)
}
