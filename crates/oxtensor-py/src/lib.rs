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

/// The extension module: the classes, functions and exceptions each room
/// exports, by room; `init` adds the rooms' own tables (the op classes,
/// the scalar ops, the settings).
#[pymodule]
mod _core {
    #[pymodule_export]
    use crate::compile::{
        debug_mode::debug_tolerance, function::PyFunction, function_recipe, mode::PyMode,
        profile::PyProfile, recipe::FunctionRecipe, UnusedInputError,
    };
    #[pymodule_export]
    use crate::config::{
        blas::{_blas, _blas_engines, _blas_machine, _blas_products, _install_blas},
        cpu::_simd,
        memory::{_alloc_stats, _live_bytes},
    };
    #[pymodule_export]
    use crate::convert::{
        constant::{as_tensor_variable, constant, stack_list},
        index_args::{getitem, inc_subtensor, take},
    };
    #[pymodule_export]
    use crate::errors::{
        exceptions::{
            AlreadyThere, ComplexError, DisconnectedInputError, InconsistencyError, InternalError,
            MethodNotDefined, MissingInputError, NullTypeGradError,
        },
        panics::_panic,
    };
    #[pymodule_export]
    use crate::gradient::{
        _grad, _grad_op, _pushforward,
        jacobian::{_jacobian, _jacobian_op},
    };
    #[pymodule_export]
    use crate::graph::{
        apply::PyApply,
        fgraph::destroy_no_output::{attach_no_output_from_inplace, detach_no_output_from_inplace},
        fgraph::destroyhandler::{fast_inplace_check, inplace_candidates, PyDestroyHandler},
        fgraph::PyFunctionGraph,
        pprint::{canonical_slice, pprint, proven_sign},
        print::debugprint,
        scratchpad::Scratchpad,
        tensor_variable::PyTensorVariable,
        types::autocast::{_autocast_float_dtypes, _set_autocast_float_dtypes},
        types::{PyDisconnectedType, PyNullType, PyScalarType, PyTensorType, PyType_},
        utils::{
            ancestors, apply_ancestors, apply_depends_on, applys_between, clone_get_equiv,
            clone_replace, equal_computations, graph_inputs, io_toposort, orphans_between,
            toposort, truncated_graph_inputs, variable_depends_on, vars_between,
        },
        variable::PyVariable,
        vectorize::{_vectorize_graph, _vectorize_node},
        walks::{general_toposort, walk},
    };
    #[pymodule_export]
    use crate::ops::{
        blockwise::_parse_gufunc_signature,
        einsum::_einsum_plan,
        elemwise::elemwise_op,
        matmul::matmul,
        op::PyOp,
        scalar::{scalar_kinds, scalar_op},
        scalar_node::{as_scalar, scalar_from_tensor_op},
        thunk::PyThunk,
        variance::{std, var},
    };
    #[pymodule_export]
    use crate::pickle::graph::GraphPickle;
    #[pymodule_export]
    use crate::registry::{_register, AutoIds};
    #[pymodule_export]
    use crate::rewriting::{
        db::{optdb_object, PyQuery, PyRewriteDb},
        graph::{equilibrium_pass, merge_pass, sequential_pass, walking_pass},
        graph::{PyCorePass, PyGraphRewriter},
        node::{constant_folding_rewriter, rewriters_for_op, PyNodeRewriter},
        profile::PyRewriteProfile,
    };

    use super::*;

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        crate::errors::panics::install_hook();
        // Count forks from import on, so a forked child never hands work to
        // the parent's pool threads (see `oxtensor_core::vm::fork`).
        oxtensor_core::vm::fork::watch();
        m.py()
            .get_type::<crate::graph::variable::PyVariable>()
            .setattr("__count__", crate::registry::auto_ids(m.py())?)?;
        crate::ops::scalar::register(m)?;
        crate::pickle::composite::register(m)?;
        crate::ops::classes::register(m)?;
        crate::ops::special::register(m)?;
        crate::config::settings::register(m)
    }
}
