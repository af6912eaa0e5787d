//! What `function(...)` was given, read into specs: inputs (`In`, shared
//! variables, mutability, downcasting), outputs, updates, givens, the
//! shared variables the graph reads, and the unused-input policy.

use crate::compile::function::InputSpec;
use crate::convert::import::Memo;
use crate::graph::types::PyTensorType;
use crate::graph::variable::PyVariable;
use crate::registry::registered;
use oxtensor_core::compile::OnUnused;
use oxtensor_core::graph::{traversal, Graph, VarId};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

pub(crate) fn is_shared(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    obj.is_instance(&registered(obj.py(), "SharedVariable")?)
}

/// `In(x, mutable=True)`: the function may overwrite the argument.
pub(crate) fn is_mutable(item: &Bound<'_, PyAny>) -> PyResult<bool> {
    if !item.is_instance(&registered(item.py(), "In")?)? {
        return Ok(false);
    }
    item.getattr("mutable")?.is_truthy()
}

/// An explicit input from a `Variable` or an `In`.
pub(crate) fn input_spec(
    item: &Bound<'_, PyAny>,
    allow_downcast: Option<bool>,
) -> PyResult<InputSpec> {
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
    let mut spec = input_spec_of(var, name, strict, own_downcast.or(allow_downcast))?;
    spec.borrow = is_in && item.getattr("borrow")?.is_truthy()?;
    Ok(spec)
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
        borrow: false,
    })
}

/// `(variables, borrow flags, single)` from `outputs`.
pub(crate) fn output_specs<'py>(
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
pub(crate) fn update_pairs<'py>(
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
        // As in PyTensor, an update expression must have the variable's
        // type exactly (a broadcastable or known length where the variable
        // has none is refused); a raw value is made a constant of it.
        let allow_convert = !expr.is_instance_of::<PyVariable>();
        let expr = ty.call_method1("filter_variable", (&expr, allow_convert)).map_err(|_| {
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

pub(crate) type Pair<'py> = (Bound<'py, PyAny>, Bound<'py, PyAny>);

/// `(variable, replacement)` pairs from a dict or a list of pairs, each
/// replacement converted to its variable's type.
pub(crate) fn given_pairs<'py>(givens: Option<Bound<'py, PyAny>>) -> PyResult<Vec<Pair<'py>>> {
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
pub(crate) fn free_inputs<'py>(
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
pub(crate) fn collect_shared<'py>(
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
pub(crate) fn on_unused(policy: Option<&str>) -> PyResult<OnUnused> {
    match policy.unwrap_or("raise") {
        "raise" => Ok(OnUnused::Raise),
        "warn" => Ok(OnUnused::Warn),
        "ignore" => Ok(OnUnused::Ignore),
        other => Err(PyValueError::new_err(format!(
            "on_unused_input must be 'raise', 'warn' or 'ignore', got '{other}'"
        ))),
    }
}
