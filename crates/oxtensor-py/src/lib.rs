//! `oxtensor._core`: the PyO3 layer. It translates between Python objects
//! and `oxtensor-core` and holds no algorithm of its own.

mod compile;
mod config;
mod convert;
mod errors;
mod gradient;
mod graph;
mod ops;
mod pickle;
mod registry;
mod rewriting;

use pyo3::prelude::*;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    errors::panics::install_hook();
    // Count forks from import on, so a forked child never hands work to
    // the parent's pool threads (see `oxtensor_core::vm::fork`).
    oxtensor_core::vm::fork::watch();
    m.add_class::<graph::types::PyType_>()?;
    m.add_class::<graph::types::PyTensorType>()?;
    m.add_class::<graph::types::PyScalarType>()?;
    m.add_class::<graph::types::PyNullType>()?;
    m.add_class::<graph::types::PyDisconnectedType>()?;
    m.add_class::<graph::variable::PyVariable>()?;
    m.py()
        .get_type::<graph::variable::PyVariable>()
        .setattr("__count__", registry::auto_ids(m.py())?)?;
    m.add_class::<graph::tensor_variable::PyTensorVariable>()?;
    m.add_class::<graph::apply::PyApply>()?;
    m.add_class::<ops::op::PyOp>()?;
    m.add_class::<ops::thunk::PyThunk>()?;
    m.add_class::<graph::scratchpad::Scratchpad>()?;
    m.add_class::<graph::fgraph::PyFunctionGraph>()?;
    m.add_class::<graph::fgraph::destroyhandler::PyDestroyHandler>()?;
    m.add_function(wrap_pyfunction!(
        graph::fgraph::destroyhandler::inplace_candidates,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(
        graph::fgraph::destroyhandler::fast_inplace_check,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(
        graph::fgraph::destroy_no_output::attach_no_output_from_inplace,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(
        graph::fgraph::destroy_no_output::detach_no_output_from_inplace,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(compile::debug_mode::debug_tolerance, m)?)?;
    m.add_class::<compile::function::PyFunction>()?;
    m.add_class::<compile::recipe::FunctionRecipe>()?;
    m.add_class::<compile::profile::PyProfile>()?;
    m.add_class::<pickle::graph::GraphPickle>()?;
    m.add(
        "UnusedInputError",
        py.get_type::<compile::UnusedInputError>(),
    )?;
    m.add_function(wrap_pyfunction!(compile::function_recipe, m)?)?;
    m.add_class::<compile::mode::PyMode>()?;
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
    m.add_function(wrap_pyfunction!(rewriting::node::rewriters_for_op, m)?)?;
    m.add_function(wrap_pyfunction!(
        rewriting::node::constant_folding_rewriter,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(rewriting::db::optdb_object, m)?)?;
    m.add_function(wrap_pyfunction!(config::blas::_install_blas, m)?)?;
    m.add_function(wrap_pyfunction!(config::blas::_blas, m)?)?;
    m.add_function(wrap_pyfunction!(config::blas::_blas_engines, m)?)?;
    m.add_function(wrap_pyfunction!(config::blas::_blas_machine, m)?)?;
    m.add_function(wrap_pyfunction!(config::blas::_blas_products, m)?)?;
    m.add_function(wrap_pyfunction!(config::cpu::_simd, m)?)?;
    m.add_function(wrap_pyfunction!(config::memory::_alloc_stats, m)?)?;
    m.add_function(wrap_pyfunction!(config::memory::_live_bytes, m)?)?;
    ops::scalar::register(m)?;
    pickle::composite::register(m)?;
    ops::classes::register(m)?;
    m.add_function(wrap_pyfunction!(ops::elemwise::elemwise_op, m)?)?;
    m.add_function(wrap_pyfunction!(ops::matmul::matmul, m)?)?;
    ops::special::register(m)?;
    config::settings::register(m)?;
    m.add(
        "InconsistencyError",
        py.get_type::<errors::exceptions::InconsistencyError>(),
    )?;
    m.add(
        "MissingInputError",
        py.get_type::<errors::exceptions::MissingInputError>(),
    )?;
    m.add(
        "AlreadyThere",
        py.get_type::<errors::exceptions::AlreadyThere>(),
    )?;
    m.add(
        "MethodNotDefined",
        py.get_type::<errors::exceptions::MethodNotDefined>(),
    )?;
    m.add(
        "DisconnectedInputError",
        py.get_type::<errors::exceptions::DisconnectedInputError>(),
    )?;
    m.add(
        "NullTypeGradError",
        py.get_type::<errors::exceptions::NullTypeGradError>(),
    )?;
    m.add(
        "ComplexError",
        py.get_type::<errors::exceptions::ComplexError>(),
    )?;
    m.add(
        "InternalError",
        py.get_type::<errors::exceptions::InternalError>(),
    )?;
    m.add_function(wrap_pyfunction!(registry::_register, m)?)?;
    m.add_class::<registry::AutoIds>()?;
    m.add_function(wrap_pyfunction!(errors::panics::_panic, m)?)?;
    m.add_function(wrap_pyfunction!(gradient::_grad, m)?)?;
    m.add_function(wrap_pyfunction!(gradient::_pushforward, m)?)?;
    m.add_function(wrap_pyfunction!(gradient::_grad_op, m)?)?;
    m.add_function(wrap_pyfunction!(gradient::jacobian::_jacobian, m)?)?;
    m.add_function(wrap_pyfunction!(gradient::jacobian::_jacobian_op, m)?)?;
    m.add_function(wrap_pyfunction!(ops::scalar::scalar_op, m)?)?;
    m.add_function(wrap_pyfunction!(ops::scalar::scalar_kinds, m)?)?;
    m.add_function(wrap_pyfunction!(ops::scalar_node::as_scalar, m)?)?;
    m.add_function(wrap_pyfunction!(
        ops::scalar_node::scalar_from_tensor_op,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(
        graph::types::autocast::_autocast_float_dtypes,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(
        graph::types::autocast::_set_autocast_float_dtypes,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(convert::constant::constant, m)?)?;
    m.add_function(wrap_pyfunction!(convert::constant::as_tensor_variable, m)?)?;
    m.add_function(wrap_pyfunction!(convert::constant::stack_list, m)?)?;
    m.add_function(wrap_pyfunction!(graph::print::debugprint, m)?)?;
    m.add_function(wrap_pyfunction!(graph::pprint::pprint, m)?)?;
    m.add_function(wrap_pyfunction!(graph::pprint::proven_sign, m)?)?;
    m.add_function(wrap_pyfunction!(graph::pprint::canonical_slice, m)?)?;
    for f in [
        wrap_pyfunction!(graph::utils::ancestors, m)?,
        wrap_pyfunction!(graph::utils::apply_ancestors, m)?,
        wrap_pyfunction!(graph::utils::graph_inputs, m)?,
        wrap_pyfunction!(graph::utils::vars_between, m)?,
        wrap_pyfunction!(graph::utils::orphans_between, m)?,
        wrap_pyfunction!(graph::utils::applys_between, m)?,
        wrap_pyfunction!(graph::utils::io_toposort, m)?,
        wrap_pyfunction!(graph::utils::toposort, m)?,
        wrap_pyfunction!(graph::utils::variable_depends_on, m)?,
        wrap_pyfunction!(graph::utils::apply_depends_on, m)?,
        wrap_pyfunction!(graph::utils::truncated_graph_inputs, m)?,
        wrap_pyfunction!(graph::walks::walk, m)?,
        wrap_pyfunction!(graph::walks::general_toposort, m)?,
        wrap_pyfunction!(graph::utils::equal_computations, m)?,
        wrap_pyfunction!(graph::utils::clone_get_equiv, m)?,
        wrap_pyfunction!(graph::utils::clone_replace, m)?,
        wrap_pyfunction!(graph::vectorize::_vectorize_graph, m)?,
        wrap_pyfunction!(graph::vectorize::_vectorize_node, m)?,
        wrap_pyfunction!(ops::blockwise::_parse_gufunc_signature, m)?,
    ] {
        m.add_function(f)?;
    }
    m.add_function(wrap_pyfunction!(ops::einsum::_einsum_plan, m)?)?;
    m.add_function(wrap_pyfunction!(ops::variance::var, m)?)?;
    m.add_function(wrap_pyfunction!(ops::variance::std, m)?)?;
    m.add_function(wrap_pyfunction!(convert::index_args::getitem, m)?)?;
    m.add_function(wrap_pyfunction!(convert::index_args::inc_subtensor, m)?)?;
    m.add_function(wrap_pyfunction!(convert::index_args::take, m)?)?;
    Ok(())
}
