//! `oxtensor.function(...)`: turns inputs, outputs, updates and givens into
//! a `FunctionGraph` (shared variables become implicit inputs, update
//! expressions extra outputs), links it for the VM, and wraps it in a
//! `Function`.

pub mod debug_mode;
pub mod function;
pub mod mode;
pub mod profile;
pub mod recipe;
pub mod vectorcall;

use crate::compile::function::InputSpec;
use crate::compile::mode::core_mode;
use crate::compile::recipe::{input_entry, FunctionRecipe};
use crate::convert::import::Memo;
use crate::errors::IntoPyResult;
use crate::graph::fgraph::PyFunctionGraph;
use crate::graph::types::PyTensorType;
use crate::graph::variable::PyVariable;
use crate::registry::registered;
use oxtensor_core::compile::{FunctionInput, FunctionMaker, FunctionSpec, OnUnused};
use oxtensor_core::graph::{traversal, Graph, VarId};
use oxtensor_core::rewrite::HostFolding;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList, PyTuple};

pyo3::create_exception!(
    oxtensor.compile.function,
    UnusedInputError,
    pyo3::exceptions::PyException,
    "An input of a function is not needed to compute its outputs."
);

fn is_shared(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    obj.is_instance(&registered(obj.py(), "SharedVariable")?)
}

/// `In(x, mutable=True)`: the function may overwrite the argument.
fn is_mutable(item: &Bound<'_, PyAny>) -> PyResult<bool> {
    if !item.is_instance(&registered(item.py(), "In")?)? {
        return Ok(false);
    }
    item.getattr("mutable")?.is_truthy()
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

type Pair<'py> = (Bound<'py, PyAny>, Bound<'py, PyAny>);

/// `(variable, replacement)` pairs from a dict or a list of pairs, each
/// replacement converted to its variable's type.
fn given_pairs<'py>(givens: Option<Bound<'py, PyAny>>) -> PyResult<Vec<Pair<'py>>> {
    let Some(g) = givens.filter(|g| !g.is_none()) else {
        return Ok(vec![]);
    };
    let items = if g.is_instance_of::<PyDict>() {
        g.call_method0("items")?
    } else {
        g
    };
    let mut pairs = Vec::new();
    for item in items.try_iter()? {
        let (k, v): Pair<'py> = item?.extract()?;
        if !k.is_instance_of::<PyVariable>() {
            return Err(PyTypeError::new_err(format!(
                "givens keys must be Variables, got {}",
                k.repr()?
            )));
        }
        let v = k.getattr("type")?.call_method1("filter_variable", (v,))?;
        pairs.push((k, v));
    }
    Ok(pairs)
}

/// The graph's own variable for each explicit input: the input itself, or
/// for an input computed by a node (a cut through the graph), a fresh free
/// variable of its type that replaces it through the givens.
fn free_inputs<'py>(
    py: Python<'py>,
    specs: &[InputSpec],
    givens: &mut Vec<Pair<'py>>,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    specs
        .iter()
        .map(|s| {
            let var = s.var.bind(py);
            if var.getattr("owner")?.is_none() {
                return Ok(var.clone());
            }
            let fresh = var.getattr("type")?.call1((var.getattr("name")?,))?;
            givens.push((var.clone(), fresh.clone()));
            Ok(fresh)
        })
        .collect()
}

/// The shared variables the graph reads (past the givens' keys), in graph
/// order, then the updated ones, with their default updates added when
/// allowed; default updates may read further shared variables, so this
/// repeats until none is new.
fn collect_shared<'py>(
    memo: &mut Memo,
    g: &mut Graph,
    roots: &[VarId],
    keys: &[VarId],
    pairs: &mut Vec<Pair<'py>>,
    no_default: &Bound<'py, PyAny>,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let py = no_default.py();
    let skip_all = no_default.is_truthy()? && !no_default.is_instance_of::<PyList>();
    let mut shared: Vec<Bound<'py, PyAny>> = Vec::new();
    let mut roots = roots.to_vec();
    loop {
        let before = shared.len();
        for v in traversal::graph_inputs(g, &roots, keys) {
            if keys.contains(&v) {
                continue; // replaced by its given, so not read
            }
            let obj = memo.var(py, v)?;
            if is_shared(&obj)? && !shared.iter().any(|s| s.is(&obj)) {
                shared.push(obj);
            }
        }
        for (v, _) in pairs.iter() {
            if !shared.iter().any(|s| s.is(v)) {
                shared.push(v.clone());
            }
        }
        for s in &shared[before..] {
            let default = s.getattr("default_update").ok().filter(|d| !d.is_none());
            let excluded =
                skip_all || (no_default.is_instance_of::<PyList>() && no_default.contains(s)?);
            let (Some(d), false) = (default, excluded) else {
                continue;
            };
            if !pairs.iter().any(|(v, _)| v.is(s)) {
                let d = s.getattr("type")?.call_method1("filter_variable", (d,))?;
                roots.push(memo.import_var(g, &d)?);
                pairs.push((s.clone(), d));
            }
        }
        if shared.len() == before {
            return Ok(shared);
        }
    }
}

/// `on_unused_input` as the core reads it.
fn on_unused(policy: Option<&str>) -> PyResult<OnUnused> {
    match policy.unwrap_or("raise") {
        "raise" => Ok(OnUnused::Raise),
        "warn" => Ok(OnUnused::Warn),
        "ignore" => Ok(OnUnused::Ignore),
        other => Err(PyValueError::new_err(format!(
            "on_unused_input must be 'raise', 'warn' or 'ignore', got '{other}'"
        ))),
    }
}

/// Shows the core's warnings as Python `UserWarning`s.
pub fn warn_all(py: Python<'_>, warnings: &[String]) -> PyResult<()> {
    let warn = py.import("warnings")?.getattr("warn")?;
    for msg in warnings {
        warn.call1((msg, py.get_type::<pyo3::exceptions::PyUserWarning>()))?;
    }
    Ok(())
}

/// What the core needs to know of the user's graph, imported once.
struct Imported<'py> {
    memo: Memo,
    g: Graph,
    spec: FunctionSpec,
    shared: Vec<Bound<'py, PyAny>>,
    /// For each update, the shared variable (index) it updates.
    updated: Vec<usize>,
}

/// Imports inputs, outputs, updates and givens, and finds the shared
/// variables; the maker copies what it compiles, so the user's graph is
/// never changed.
fn import_function<'py>(
    fg_inputs: &[Bound<'py, PyAny>],
    outputs: &[(Bound<'py, PyAny>, bool)],
    mut pairs: Vec<Pair<'py>>,
    givens: &[Pair<'py>],
    no_default: &Bound<'py, PyAny>,
) -> PyResult<Imported<'py>> {
    let (mut memo, mut g) = (Memo::default(), Graph::new());
    let mut spec = FunctionSpec::default();
    for v in fg_inputs {
        spec.inputs
            .push(FunctionInput::new(memo.import_var(&mut g, v)?));
    }
    for (v, borrow) in outputs {
        spec.outputs.push((memo.import_var(&mut g, v)?, *borrow));
    }
    for (k, v) in givens {
        spec.givens
            .push((memo.import_var(&mut g, k)?, memo.import_var(&mut g, v)?));
    }
    let mut roots: Vec<VarId> = spec.outputs.iter().map(|&(v, _)| v).collect();
    for (_, e) in &pairs {
        roots.push(memo.import_var(&mut g, e)?);
    }
    roots.extend(spec.givens.iter().map(|&(_, v)| v));
    let keys: Vec<VarId> = spec.givens.iter().map(|&(k, _)| k).collect();
    let shared = collect_shared(&mut memo, &mut g, &roots, &keys, &mut pairs, no_default)?;
    let updated: Vec<usize> = pairs
        .iter()
        .map(|(v, _)| shared.iter().position(|s| s.is(v)).unwrap_or(0))
        .collect();
    let n_explicit = spec.inputs.len();
    for (k, s) in shared.iter().enumerate() {
        spec.inputs.push(FunctionInput {
            var: memo.import_var(&mut g, s)?,
            mutable: updated.contains(&k),
            borrow: true,
            implicit: true,
        });
    }
    for ((_, e), &k) in pairs.iter().zip(&updated) {
        spec.updates
            .push((n_explicit + k, memo.import_var(&mut g, e)?));
    }
    Ok(Imported {
        memo,
        g,
        spec,
        shared,
        updated,
    })
}

/// `oxtensor.function`'s work up to linking: the rewritten graph and what
/// a call needs. `oxtensor.function` links it (`FunctionRecipe.compile`);
/// a linker outside the core (`oxtensor.link.jax`) takes the graph. A
/// panic while compiling is an `InternalError` (see `errors/panics.rs`).
#[pyfunction]
#[pyo3(signature = (inputs, outputs = None, mode = None, updates = None, givens = None, no_default_updates = None, accept_inplace = false, name = None, rebuild_strict = true, allow_input_downcast = None, profile = None, on_unused_input = None))]
#[allow(clippy::too_many_arguments)]
pub fn function_recipe<'py>(
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
) -> PyResult<Bound<'py, FunctionRecipe>> {
    crate::errors::panics::guard(|| {
        let _ = rebuild_strict;
        let core = core_mode(mode.as_ref())?;
        // DebugMode compares every call with the same function in FAST_COMPILE.
        let reference_args = core
            .link
            .checker
            .as_ref()
            .is_some_and(|c| c.wants_reference())
            .then(|| {
                (
                    inputs.clone(),
                    outputs.clone(),
                    updates.clone(),
                    givens.clone(),
                    no_default_updates.clone(),
                )
            });
        let items: Vec<Bound<'py, PyAny>> = inputs.try_iter()?.collect::<PyResult<_>>()?;
        let specs: Vec<InputSpec> = items
            .iter()
            .map(|i| input_spec(i, allow_input_downcast))
            .collect::<PyResult<_>>()?;
        let mutable = items
            .iter()
            .map(is_mutable)
            .collect::<PyResult<Vec<bool>>>()?;
        for (i, s) in specs.iter().enumerate() {
            if specs[..i].iter().any(|o| o.var.is(&s.var)) {
                return Err(PyValueError::new_err(format!(
                    "Variable {} is used twice in inputs",
                    s.var.bind(py).str()?
                )));
            }
        }
        let (out_vars, borrow, single) = output_specs(outputs)?;
        let pairs = update_pairs(updates)?;
        let mut givens = given_pairs(givens)?;
        let fg_inputs = free_inputs(py, &specs, &mut givens)?;
        let no_default =
            no_default_updates.unwrap_or_else(|| PyBool::new(py, false).to_owned().into_any());
        let outs: Vec<(Bound<'py, PyAny>, bool)> = out_vars
            .iter()
            .cloned()
            .zip(borrow.iter().copied())
            .collect();
        let mut imported = import_function(&fg_inputs, &outs, pairs, &givens, &no_default)?;
        imported.spec.on_unused_input = on_unused(on_unused_input.as_deref())?;
        imported.spec.accept_inplace = accept_inplace;
        for (input, m) in imported.spec.inputs.iter_mut().zip(mutable) {
            input.mutable = m;
        }
        let (fg, log) = PyFunctionGraph::shell(py, imported.memo)?;
        let bridge = crate::rewriting::bridge::HostBridge::new(&fg);
        let built = FunctionMaker::new(imported.g, imported.spec, core)
            .with_feature(log)
            .with_feature(Box::new(bridge))
            .with_feature(Box::new(HostFolding(Box::new(
                crate::rewriting::fold::PyHostFolder,
            ))))
            .build()
            .py()?;
        warn_all(py, &built.warnings)?;
        // PyTensor keeps a rewrite run's profile on the graph (`fgraph.profile`).
        let profile_obj = crate::rewriting::profile::PyRewriteProfile::from(built.profile);
        fg.setattr("rewrite_profile", profile_obj)?;
        let mut core_fg = built.fgraph;
        crate::rewriting::bridge::HostBridge::detach(&mut core_fg).py()?;
        core_fg.remove_feature_of::<HostFolding>().py()?;
        PyFunctionGraph::adopt(&fg, core_fg)?;
        let profile = profile.map(|p| p.is_truthy()).transpose()?.unwrap_or(false);
        let entries = specs
            .iter()
            .map(|s| input_entry(py, &s.var, &s.name, s.strict, s.allow_downcast))
            .collect::<PyResult<Vec<_>>>()?;
        let reference = match reference_args {
            Some((inputs, outputs, updates, givens, no_default)) => {
                let fast_compile = pyo3::types::PyString::new(py, "FAST_COMPILE").into_any();
                let f = function_recipe(
                    py,
                    inputs,
                    outputs,
                    Some(fast_compile),
                    updates,
                    givens,
                    no_default,
                    accept_inplace,
                    None,
                    rebuild_strict,
                    allow_input_downcast,
                    None,
                    Some("ignore".to_owned()),
                )?;
                Some(f.unbind())
            }
            None => None,
        };
        let recipe = FunctionRecipe::new(
            fg.unbind(),
            PyList::new(py, entries)?.into_any(),
            PyList::new(py, imported.shared)?.into_any(),
            imported.updated,
            PyList::new(py, &out_vars)?.into_any(),
            out_vars.len(),
            single,
            borrow,
            name,
            profile,
            mode.map(Bound::unbind),
            reference,
        )?;
        Bound::new(py, recipe)
    })
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
