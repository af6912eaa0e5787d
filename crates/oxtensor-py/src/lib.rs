//! `oxtensor._core`: the PyO3 layer. It translates between Python objects
//! and `oxtensor-core` and holds no algorithm of its own.

mod apply;
mod apply_edits;
mod array;
mod bincount_ops;
mod blas;
mod builtin_ops;
mod compile;
mod composite_pickle;
mod constant;
mod construct;
mod cpu;
mod debug_mode;
mod describe;
mod destroyhandler;
mod errors;
mod exceptions;
mod export;
mod fgraph;
mod fgraph_pickle;
mod function;
mod function_recipe;
mod gradient;
mod gradient_types;
mod graph_pickle;
mod host_op;
mod host_thunk;
mod host_value;
mod import;
mod inc_subtensor_ops;
mod infer_shape;
mod linalg_ops;
mod make_node;
mod matmul;
mod mode;
mod nonzero_ops;
mod op;
mod panics;
mod pickle_session;
mod print;
mod profile;
mod registry;
mod rewriting;
mod rewritten_ops;
mod scalar_ops;
mod scratchpad;
mod settings;
mod shape_ops;
mod sort_ops;
mod special_ops;
mod subtensor_ops;
mod tensor_variable;
mod tensor_variable_math;
mod tensor_variable_shape;
mod thunk;
mod types;
mod utils;
mod variable;
mod vectorcall;

use pyo3::prelude::*;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    panics::install_hook();
    // Count forks from import on, so a forked child never hands work to
    // the parent's pool threads (see `oxtensor_core::vm::fork`).
    oxtensor_core::vm::fork::watch();
    m.add_class::<types::PyType_>()?;
    m.add_class::<types::PyTensorType>()?;
    m.add_class::<types::PyNullType>()?;
    m.add_class::<types::PyDisconnectedType>()?;
    m.add_class::<variable::PyVariable>()?;
    m.add_class::<tensor_variable::PyTensorVariable>()?;
    m.add_class::<apply::PyApply>()?;
    m.add_class::<op::PyOp>()?;
    m.add_class::<thunk::PyThunk>()?;
    m.add_class::<scratchpad::Scratchpad>()?;
    m.add_class::<fgraph::PyFunctionGraph>()?;
    m.add_class::<destroyhandler::PyDestroyHandler>()?;
    m.add_function(wrap_pyfunction!(destroyhandler::inplace_candidates, m)?)?;
    m.add_function(wrap_pyfunction!(destroyhandler::fast_inplace_check, m)?)?;
    m.add_function(wrap_pyfunction!(debug_mode::debug_tolerance, m)?)?;
    m.add_class::<function::PyFunction>()?;
    m.add_class::<function_recipe::FunctionRecipe>()?;
    m.add_class::<profile::PyProfile>()?;
    m.add_class::<graph_pickle::GraphPickle>()?;
    m.add(
        "UnusedInputError",
        py.get_type::<compile::UnusedInputError>(),
    )?;
    m.add_function(wrap_pyfunction!(compile::function_recipe, m)?)?;
    m.add_class::<mode::PyMode>()?;
    m.add_class::<rewriting::node::PyNodeRewriter>()?;
    m.add_class::<rewriting::graph::PyGraphRewriter>()?;
    m.add_class::<rewriting::graph::PyCorePass>()?;
    m.add_class::<rewriting::profile::PyRewriteProfile>()?;
    m.add_class::<rewriting::db::PyRewriteDb>()?;
    m.add_class::<rewriting::db::PyQuery>()?;
    m.add_function(wrap_pyfunction!(rewriting::graph::walking_pass, m)?)?;
    m.add_function(wrap_pyfunction!(rewriting::graph::equilibrium_pass, m)?)?;
    m.add_function(wrap_pyfunction!(rewriting::graph::sequential_pass, m)?)?;
    m.add_function(wrap_pyfunction!(rewriting::graph::merge_pass, m)?)?;
    m.add_function(wrap_pyfunction!(rewriting::db::optdb_object, m)?)?;
    m.add_function(wrap_pyfunction!(blas::_install_blas, m)?)?;
    m.add_function(wrap_pyfunction!(blas::_blas, m)?)?;
    m.add_function(wrap_pyfunction!(blas::_blas_engines, m)?)?;
    m.add_function(wrap_pyfunction!(blas::_blas_machine, m)?)?;
    m.add_function(wrap_pyfunction!(blas::_blas_products, m)?)?;
    m.add_function(wrap_pyfunction!(cpu::_simd, m)?)?;
    scalar_ops::register(m)?;
    composite_pickle::register(m)?;
    builtin_ops::register(m)?;
    linalg_ops::register(m)?;
    special_ops::register(m)?;
    rewritten_ops::register(m)?;
    settings::register(m)?;
    sort_ops::register(m)?;
    shape_ops::register(m)?;
    subtensor_ops::register(m)?;
    nonzero_ops::register(m)?;
    bincount_ops::register(m)?;
    m.add(
        "InconsistencyError",
        py.get_type::<exceptions::InconsistencyError>(),
    )?;
    m.add(
        "MissingInputError",
        py.get_type::<exceptions::MissingInputError>(),
    )?;
    m.add("AlreadyThere", py.get_type::<exceptions::AlreadyThere>())?;
    m.add(
        "MethodNotDefined",
        py.get_type::<exceptions::MethodNotDefined>(),
    )?;
    m.add(
        "DisconnectedInputError",
        py.get_type::<exceptions::DisconnectedInputError>(),
    )?;
    m.add(
        "NullTypeGradError",
        py.get_type::<exceptions::NullTypeGradError>(),
    )?;
    m.add("InternalError", py.get_type::<exceptions::InternalError>())?;
    m.add_function(wrap_pyfunction!(registry::_register, m)?)?;
    m.add_function(wrap_pyfunction!(panics::_panic, m)?)?;
    m.add_function(wrap_pyfunction!(gradient::_grad, m)?)?;
    m.add_function(wrap_pyfunction!(gradient::_pushforward, m)?)?;
    m.add_function(wrap_pyfunction!(gradient::_grad_op, m)?)?;
    m.add_function(wrap_pyfunction!(scalar_ops::scalar_op, m)?)?;
    m.add_function(wrap_pyfunction!(scalar_ops::scalar_kinds, m)?)?;
    m.add_function(wrap_pyfunction!(constant::constant, m)?)?;
    m.add_function(wrap_pyfunction!(constant::as_tensor_variable, m)?)?;
    m.add_function(wrap_pyfunction!(print::debugprint, m)?)?;
    for f in [
        wrap_pyfunction!(utils::ancestors, m)?,
        wrap_pyfunction!(utils::graph_inputs, m)?,
        wrap_pyfunction!(utils::vars_between, m)?,
        wrap_pyfunction!(utils::orphans_between, m)?,
        wrap_pyfunction!(utils::applys_between, m)?,
        wrap_pyfunction!(utils::io_toposort, m)?,
        wrap_pyfunction!(utils::toposort, m)?,
        wrap_pyfunction!(utils::equal_computations, m)?,
        wrap_pyfunction!(utils::clone_get_equiv, m)?,
        wrap_pyfunction!(utils::clone_replace, m)?,
    ] {
        m.add_function(f)?;
    }
    Ok(())
}
