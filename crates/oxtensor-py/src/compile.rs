//! `oxtensor.function(...)`: turns inputs, outputs, updates and givens into
//! a `FunctionGraph` (shared variables become implicit inputs, update
//! expressions extra outputs), links it for the VM, and wraps it in a
//! `Function`.

use crate::fgraph::PyFunctionGraph;
use crate::function::{InputSpec, PyFunction};
use crate::function_recipe::{input_entry, FunctionRecipe};
use crate::registry::registered;
use crate::types::PyTensorType;
use crate::utils::{clone_replace, graph_inputs};
use crate::variable::PyVariable;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

pyo3::create_exception!(
    oxtensor.compile.function,
    UnusedInputError,
    pyo3::exceptions::PyException,
    "An input of a function is not needed to compute its outputs."
);

const MODES: [&str; 7] = ["FAST_RUN", "FAST_COMPILE", "NUMBA", "CVM", "VM", "C", "py"];

fn is_shared(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    obj.is_instance(&registered(obj.py(), "SharedVariable")?)
}

fn check_mode(mode: &Option<Bound<'_, PyAny>>) -> PyResult<()> {
    let Some(m) = mode.as_ref().filter(|m| !m.is_none()) else {
        return Ok(());
    };
    match m.extract::<String>() {
        Ok(s) if MODES.contains(&s.as_str()) => Ok(()),
        Ok(s) => Err(PyValueError::new_err(format!(
            "unknown mode '{s}'; expected one of {}",
            MODES.join(", ")
        ))),
        Err(_) if m.is_instance(&registered(m.py(), "Mode")?)? => Ok(()),
        Err(_) => Err(PyTypeError::new_err(format!(
            "mode must be a string or a Mode, got {}",
            m.repr()?
        ))),
    }
}

/// An explicit input from a `Variable` or an `In`.
fn input_spec(item: &Bound<'_, PyAny>, allow_downcast: Option<bool>) -> PyResult<InputSpec> {
    let py = item.py();
    let is_in = item.is_instance(&registered(py, "In")?)?;
    let var = if is_in {
        item.getattr("variable")?
    } else {
        item.clone()
    };
    let v = var.cast::<PyVariable>().map_err(|_| {
        PyTypeError::new_err(format!(
            "Function inputs must be Variables or In, got {}",
            item.repr().map(|r| r.to_string()).unwrap_or_default()
        ))
    })?;
    if v.borrow().is_constant() {
        return Err(PyTypeError::new_err(format!(
            "Constant {} cannot be an input of a function: constants need no input",
            var.str()?
        )));
    }
    if is_shared(&var)? {
        return Err(PyTypeError::new_err(format!(
            "Cannot use a shared variable ({}) as explicit input. Consider substituting its value using the 'givens' parameter",
            var.str()?
        )));
    }
    let name: Option<String> = if is_in {
        item.getattr("name")?.extract()?
    } else {
        None
    };
    let name = name.or_else(|| v.borrow().name_str(py));
    let (strict, own_downcast) = if is_in {
        (
            item.getattr("strict")?.is_truthy()?,
            item.getattr("allow_downcast")?.extract()?,
        )
    } else {
        (false, None)
    };
    input_spec_of(var, name, strict, own_downcast.or(allow_downcast))
}

/// An input spec from its settled options (also how an unpickled
/// function's inputs are rebuilt).
pub fn input_spec_of(
    var: Bound<'_, PyAny>,
    name: Option<String>,
    strict: bool,
    allow_downcast: Option<bool>,
) -> PyResult<InputSpec> {
    let ty = var.getattr("type")?;
    let tensor = ty
        .cast::<PyTensorType>()
        .ok()
        .map(|t| t.get().inner.clone());
    Ok(InputSpec {
        var: var.unbind(),
        name,
        ty: ty.unbind(),
        tensor,
        strict,
        allow_downcast,
    })
}

/// `(variables, borrow flags, single)` from `outputs`.
fn output_specs<'py>(
    outputs: Option<Bound<'py, PyAny>>,
) -> PyResult<(Vec<Bound<'py, PyAny>>, Vec<bool>, bool)> {
    let Some(outputs) = outputs.filter(|o| !o.is_none()) else {
        return Ok((vec![], vec![], false));
    };
    let py = outputs.py();
    let out_cls = registered(py, "Out")?;
    let one = |o: Bound<'py, PyAny>| -> PyResult<(Bound<'py, PyAny>, bool)> {
        if o.is_instance(&out_cls)? {
            return Ok((o.getattr("variable")?, o.getattr("borrow")?.is_truthy()?));
        }
        if !o.is_instance_of::<PyVariable>() {
            return Err(PyTypeError::new_err(format!(
                "Function outputs must be Variables or Out, got {}",
                o.repr()?
            )));
        }
        Ok((o, false))
    };
    if outputs.is_instance_of::<PyList>() || outputs.is_instance_of::<PyTuple>() {
        let pairs: Vec<_> = outputs
            .try_iter()?
            .map(|o| one(o?))
            .collect::<PyResult<_>>()?;
        let (vars, borrow) = pairs.into_iter().unzip();
        return Ok((vars, borrow, false));
    }
    let (v, b) = one(outputs)?;
    Ok((vec![v], vec![b], true))
}

/// `(shared, expression)` pairs from a dict or a list of pairs, each
/// expression converted to the shared variable's type.
fn update_pairs<'py>(
    updates: Option<Bound<'py, PyAny>>,
) -> PyResult<Vec<(Bound<'py, PyAny>, Bound<'py, PyAny>)>> {
    let Some(u) = updates.filter(|u| !u.is_none()) else {
        return Ok(vec![]);
    };
    let items = if u.is_instance_of::<PyDict>() {
        u.call_method0("items")?
    } else {
        u
    };
    let mut pairs: Vec<(Bound<'py, PyAny>, Bound<'py, PyAny>)> = Vec::new();
    for item in items.try_iter()? {
        let (var, expr): (Bound<'py, PyAny>, Bound<'py, PyAny>) = item?.extract()?;
        if !is_shared(&var)? {
            return Err(PyTypeError::new_err(format!(
                "Updates must be for shared variables, got {} of type {}",
                var.str()?,
                var.get_type().name()?
            )));
        }
        if pairs.iter().any(|(v, _)| v.is(&var)) {
            return Err(PyValueError::new_err(format!(
                "Shared variable {} has two update expressions",
                var.str()?
            )));
        }
        let ty = var.getattr("type")?;
        let expr = ty.call_method1("filter_variable", (&expr,)).map_err(|_| {
            let got = expr.getattr("type").map(|t| t.str().map(|s| s.to_string()).unwrap_or_default()).unwrap_or_else(|_| "?".into());
            PyTypeError::new_err(format!(
                "An update must have the same type as the original shared variable (shared_var={}, shared_var.type={}, update_val={}, update_val.type={got}).",
                var.str().map(|s| s.to_string()).unwrap_or_default(),
                ty.str().map(|s| s.to_string()).unwrap_or_default(),
                expr.str().map(|s| s.to_string()).unwrap_or_default()
            ))
        })?;
        pairs.push((var, expr));
    }
    Ok(pairs)
}

/// The replacements: `givens`, plus a fresh root for each owned input.
fn replacements<'py>(
    py: Python<'py>,
    givens: Option<Bound<'py, PyAny>>,
    inputs: &[InputSpec],
) -> PyResult<Bound<'py, PyDict>> {
    let map = PyDict::new(py);
    if let Some(g) = givens.filter(|g| !g.is_none()) {
        let items = if g.is_instance_of::<PyDict>() {
            g.call_method0("items")?
        } else {
            g
        };
        for item in items.try_iter()? {
            let (k, v): (Bound<'py, PyAny>, Bound<'py, PyAny>) = item?.extract()?;
            if !k.is_instance_of::<PyVariable>() {
                return Err(PyTypeError::new_err(format!(
                    "givens keys must be Variables, got {}",
                    k.repr()?
                )));
            }
            map.set_item(
                &k,
                k.getattr("type")?.call_method1("filter_variable", (v,))?,
            )?;
        }
    }
    for spec in inputs {
        let var = spec.var.bind(py);
        if !var.getattr("owner")?.is_none() {
            map.set_item(var, var.getattr("type")?.call1((var.getattr("name")?,))?)?;
        }
    }
    Ok(map)
}

/// Shared variables the graph reads, in graph order, with their default
/// updates added when allowed.
fn collect_shared<'py>(
    outs: &Bound<'py, PyList>,
    pairs: &mut Vec<(Bound<'py, PyAny>, Bound<'py, PyAny>)>,
    no_default: &Bound<'py, PyAny>,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let mut shared: Vec<Bound<'py, PyAny>> = Vec::new();
    for v in graph_inputs(outs.clone().into_any(), None)?.iter() {
        if is_shared(&v)? && !shared.iter().any(|s| s.is(&v)) {
            shared.push(v);
        }
    }
    for (v, _) in pairs.iter() {
        if !shared.iter().any(|s| s.is(v)) {
            shared.push(v.clone());
        }
    }
    let skip_all = no_default.is_truthy()? && !no_default.is_instance_of::<PyList>();
    for s in shared.clone() {
        let default = s.getattr("default_update").ok().filter(|d| !d.is_none());
        let excluded =
            skip_all || (no_default.is_instance_of::<PyList>() && no_default.contains(&s)?);
        if let (Some(d), false) = (default, excluded) {
            if !pairs.iter().any(|(v, _)| v.is(&s)) {
                pairs.push((
                    s.clone(),
                    s.getattr("type")?.call_method1("filter_variable", (d,))?,
                ));
            }
        }
    }
    Ok(shared)
}

/// Applies `on_unused_input` to explicit inputs the outputs do not need.
fn check_unused(
    py: Python<'_>,
    inputs: &[Bound<'_, PyAny>],
    outs: &Bound<'_, PyList>,
    policy: &str,
) -> PyResult<()> {
    let needed = crate::utils::ancestors(outs.clone().into_any(), None)?;
    for (i, v) in inputs.iter().enumerate() {
        if needed.contains(v)? {
            continue;
        }
        let msg = format!(
            "oxtensor.function was asked to create a function computing outputs given certain inputs, but the provided input variable at index {i} is not part of the computational graph needed to compute the outputs: {}.\nTo make this error into a warning, you can pass the parameter on_unused_input='warn' to oxtensor.function. To disable it completely, use on_unused_input='ignore'.",
            v.str()?
        );
        match policy {
            "raise" => return Err(UnusedInputError::new_err(msg)),
            "warn" => {
                py.import("warnings")?.call_method1(
                    "warn",
                    (msg, py.get_type::<pyo3::exceptions::PyUserWarning>()),
                )?;
            }
            "ignore" => {}
            other => {
                return Err(PyValueError::new_err(format!(
                    "on_unused_input must be 'raise', 'warn' or 'ignore', got '{other}'"
                )))
            }
        }
    }
    Ok(())
}

/// `oxtensor.function`: see the Python wrapper for the documentation. A
/// panic while compiling is an `InternalError` (see `panics.rs`).
#[pyfunction]
#[pyo3(signature = (inputs, outputs = None, mode = None, updates = None, givens = None, no_default_updates = None, accept_inplace = false, name = None, rebuild_strict = true, allow_input_downcast = None, profile = None, on_unused_input = None, trust_input = false))]
#[allow(clippy::too_many_arguments)]
pub fn function<'py>(
    py: Python<'py>,
    inputs: Bound<'py, PyAny>,
    outputs: Option<Bound<'py, PyAny>>,
    mode: Option<Bound<'py, PyAny>>,
    updates: Option<Bound<'py, PyAny>>,
    givens: Option<Bound<'py, PyAny>>,
    no_default_updates: Option<Bound<'py, PyAny>>,
    accept_inplace: bool,
    name: Option<String>,
    rebuild_strict: bool,
    allow_input_downcast: Option<bool>,
    profile: Option<Bound<'py, PyAny>>,
    on_unused_input: Option<String>,
    trust_input: bool,
) -> PyResult<PyFunction> {
    crate::panics::guard(|| {
        compile_function(
            py,
            inputs,
            outputs,
            mode,
            updates,
            givens,
            no_default_updates,
            accept_inplace,
            name,
            rebuild_strict,
            allow_input_downcast,
            profile,
            on_unused_input,
            trust_input,
        )
    })
}

#[allow(clippy::too_many_arguments)]
fn compile_function<'py>(
    py: Python<'py>,
    inputs: Bound<'py, PyAny>,
    outputs: Option<Bound<'py, PyAny>>,
    mode: Option<Bound<'py, PyAny>>,
    updates: Option<Bound<'py, PyAny>>,
    givens: Option<Bound<'py, PyAny>>,
    no_default_updates: Option<Bound<'py, PyAny>>,
    accept_inplace: bool,
    name: Option<String>,
    rebuild_strict: bool,
    allow_input_downcast: Option<bool>,
    profile: Option<Bound<'py, PyAny>>,
    on_unused_input: Option<String>,
    trust_input: bool,
) -> PyResult<PyFunction> {
    let _ = rebuild_strict;
    check_mode(&mode)?;
    let specs: Vec<InputSpec> = inputs
        .try_iter()?
        .map(|i| input_spec(&i?, allow_input_downcast))
        .collect::<PyResult<_>>()?;
    for (i, s) in specs.iter().enumerate() {
        if specs[..i].iter().any(|o| o.var.is(&s.var)) {
            return Err(PyValueError::new_err(format!(
                "Variable {} is used twice in inputs",
                s.var.bind(py).str()?
            )));
        }
    }
    let (out_vars, borrow, single) = output_specs(outputs)?;
    let mut pairs = update_pairs(updates)?;
    let n_outputs = out_vars.len();
    let all = PyList::new(py, out_vars.iter().chain(pairs.iter().map(|(_, e)| e)))?;
    let repl = replacements(py, givens, &specs)?;
    let all = if repl.is_empty() {
        all
    } else {
        clone_replace(all.into_any(), Some(repl.clone().into_any()), None)?.cast_into::<PyList>()?
    };
    let no_default = no_default_updates.unwrap_or_else(|| {
        false
            .into_pyobject(py)
            .map(|b| b.to_owned().into_any())
            .unwrap_or_else(|_| py.None().into_bound(py))
    });
    let shared = collect_shared(&all, &mut pairs, &no_default)?;
    let all = PyList::new(
        py,
        all.iter()
            .take(n_outputs)
            .chain(pairs.iter().map(|(_, e)| e.clone())),
    )?;
    let fg_inputs: Vec<Bound<'py, PyAny>> = specs
        .iter()
        .map(|s| {
            Ok(repl
                .get_item(s.var.bind(py))?
                .unwrap_or_else(|| s.var.bind(py).clone()))
        })
        .collect::<PyResult<_>>()?;
    check_unused(
        py,
        &fg_inputs,
        &all,
        on_unused_input.as_deref().unwrap_or("raise"),
    )?;
    let fg_in = PyList::new(py, fg_inputs.iter().chain(shared.iter()))?;
    // As PyTensor's `rebuild_collect_shared(copy_inputs_over=True)`: the
    // nodes are cloned (compiling never changes the user's graph) but the
    // graph's inputs stay the user's own variables, so
    // `f.maker.fgraph.inputs[0] is x`.
    let all = clone_replace(all.into_any(), None, None)?;
    let kwargs = PyDict::new(py);
    kwargs.set_item("clone", false)?;
    let fg = py
        .get_type::<PyFunctionGraph>()
        .call((fg_in, &all), Some(&kwargs))?
        .cast_into::<PyFunctionGraph>()?;
    check_inplace(&fg, accept_inplace)?;
    // Nodes edited in place since they were built are refused before any
    // rewrite looks at them.
    oxtensor_core::graph::check_graph_types(fg.borrow().core()?)
        .map_err(crate::errors::to_pyerr)?;
    PyFunctionGraph::_constant_fold(&fg)?;
    let profile = profile.map(|p| p.is_truthy()).transpose()?.unwrap_or(false);
    let updates: Vec<usize> = pairs
        .iter()
        .map(|(v, _)| shared.iter().position(|s| s.is(v)).unwrap_or(0))
        .collect();
    let entries = specs
        .iter()
        .map(|s| input_entry(py, &s.var, &s.name, s.strict, s.allow_downcast))
        .collect::<PyResult<Vec<_>>>()?;
    let recipe = FunctionRecipe::new(
        fg.unbind(),
        PyList::new(py, entries)?.into_any(),
        PyList::new(py, shared)?.into_any(),
        updates,
        PyList::new(py, out_vars)?.into_any(),
        n_outputs,
        single,
        borrow,
        name,
        profile,
        mode.map(Bound::unbind),
    )?;
    let recipe = Bound::new(py, recipe)?;
    FunctionRecipe::compile(&recipe, trust_input)
}

/// Refuses graphs that already contain inplace ops unless `accept_inplace`.
fn check_inplace(fg: &Bound<'_, PyFunctionGraph>, accept: bool) -> PyResult<()> {
    if accept {
        return Ok(());
    }
    for node in fg.getattr("apply_nodes")?.try_iter()? {
        let node = node?;
        if node.getattr("op")?.getattr("destroy_map")?.is_truthy()? {
            return Err(PyTypeError::new_err(format!(
                "Graph must not contain inplace operations: {}",
                node.str()?
            )));
        }
    }
    Ok(())
}

/// `Function.maker`: the function graph and the inputs and outputs.
pub fn make_maker(
    py: Python<'_>,
    fg: &Bound<'_, PyFunctionGraph>,
    specs: &[InputSpec],
    outputs: &[Bound<'_, PyAny>],
) -> PyResult<Py<PyAny>> {
    let ns = py.import("types")?.getattr("SimpleNamespace")?;
    let kwargs = PyDict::new(py);
    kwargs.set_item("fgraph", fg)?;
    kwargs.set_item(
        "inputs",
        PyList::new(py, specs.iter().map(|s| s.var.clone_ref(py)))?,
    )?;
    kwargs.set_item("outputs", PyList::new(py, outputs)?)?;
    Ok(ns.call((), Some(&kwargs))?.unbind())
}
