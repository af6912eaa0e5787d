//! The Python object of any core op, from the one registration of built-in
//! op classes below (`builtin_ops!`: core op type => Python class). A new
//! op with a class of its own adds one line there; the table also adds
//! every class to the module.

use crate::gradient::grad_op::PyGradOp;
use crate::gradient::jacobian::PyJacobian;
use crate::ops::bincount::PyBincount;
use crate::ops::blas::{PyDot22, PyGemv};
use crate::ops::blockwise::PyBlockwise;
use crate::ops::diagonal::{PyAllocDiag, PyExtractDiag};
use crate::ops::dimshuffle::{self, PyDimShuffle};
use crate::ops::elemwise::{self, PyElemwise};
use crate::ops::extra::{
    PyBartlett, PyCpuContiguous, PyDeepCopyOp, PyFillDiagonal, PyFillDiagonalOffset,
    PyRavelMultiIndex, PySearchsortedOp, PyUnique, PyUnravelIndex,
};
use crate::ops::host_op::HostOp;
use crate::ops::ifelse::PyIfElse;
use crate::ops::inc_subtensor::{PyAdvancedIncSubtensor, PyAdvancedIncSubtensor1, PyIncSubtensor};
use crate::ops::linalg::{
    PyCholesky, PyCholeskyGrad, PyDet, PyDot, PyEigh, PyEighGrad, PyEigvalsh, PyExpm, PyExpmGrad,
    PyMatmul, PyMatrixInverse, PyQr, PyQrGrad, PySLogDet, PySvd, PySvdGrad,
};
use crate::ops::nonzero::PyNonzero;
use crate::ops::op::PyOp;
use crate::ops::reduce::{
    self, PyAll, PyAny_, PyCAReduce, PyMax, PyMin, PyProd, PyProdWithoutZeros, PySum,
};
use crate::ops::reshape::{PyReshape, PyShape, PyShapeI};
use crate::ops::rewritten::{PyArgmin, PyCentredSquares};
use crate::ops::scalar_node::{PyScalarFromTensor, PyTensorFromScalar};
use crate::ops::selection::{PyChoose, PyPermuteRowElements};
use crate::ops::shape::{
    PyARange, PyAlloc, PyAllocEmpty, PyEye, PyJoin, PyMakeVector, PyRepeat, PySpecifyShape, PySplit,
};
use crate::ops::signal::{PyConvolve1d, PyIRFFTGrad, PyIRFFTOp, PyRFFTGrad, PyRFFTOp};
use crate::ops::solvers::{
    PyLuFactor, PyLuFactorGrad, PyPivotToPermutations, PySolve, PySolveTriangular,
};
use crate::ops::sort::{self, PyArgSortOp, PyCumOp, PySortOp, PyTakeAlongAxis};
use crate::ops::special::{self, PyArgmax, PyLogSoftmax, PyLogSumExp, PySoftmax};
use crate::ops::subtensor::{PyAdvancedSubtensor, PyAdvancedSubtensor1, PySubtensor};
use crate::pickle::composite;
use oxtensor_core::grad::jacobian::Jacobian;
use oxtensor_core::ops::advanced_inc_subtensor::{AdvancedIncSubtensor, AdvancedIncSubtensor1};
use oxtensor_core::ops::advanced_subtensor::{AdvancedSubtensor, AdvancedSubtensor1};
use oxtensor_core::ops::alloc::{Alloc, AllocEmpty};
use oxtensor_core::ops::arange::{ARange, Eye};
use oxtensor_core::ops::argmax::Argmax;
use oxtensor_core::ops::argmin::Argmin;
use oxtensor_core::ops::bartlett::Bartlett;
use oxtensor_core::ops::bincount::Bincount;
use oxtensor_core::ops::blas::Dot;
use oxtensor_core::ops::blas::Dot22;
use oxtensor_core::ops::blockwise::Blockwise;
use oxtensor_core::ops::centred_squares::CentredSquares;
use oxtensor_core::ops::choose::Choose;
use oxtensor_core::ops::composite_reduce::CompositeReduce;
use oxtensor_core::ops::convolve::Convolve1d;
use oxtensor_core::ops::cpu_contiguous::CpuContiguous;
use oxtensor_core::ops::cumulative::CumOp;
use oxtensor_core::ops::deep_copy::DeepCopyOp;
use oxtensor_core::ops::diagonal::{AllocDiag, ExtractDiag};
use oxtensor_core::ops::dimshuffle::DimShuffle;
use oxtensor_core::ops::elemwise::Elemwise;
use oxtensor_core::ops::fft::{IRFFTGrad, IRFFTOp, RFFTGrad, RFFTOp};
use oxtensor_core::ops::fill_diagonal::{FillDiagonal, FillDiagonalOffset};
use oxtensor_core::ops::gemv::Gemv;
use oxtensor_core::ops::grad_ops::GradOp;
use oxtensor_core::ops::ifelse::IfElse;
use oxtensor_core::ops::join::Join;
use oxtensor_core::ops::linalg::cholesky::{Cholesky, CholeskyGrad};
use oxtensor_core::ops::linalg::det::{Det, SLogDet};
use oxtensor_core::ops::linalg::eigh::{Eigh, EighGrad, Eigvalsh};
use oxtensor_core::ops::linalg::expm::{Expm, ExpmGrad};
use oxtensor_core::ops::linalg::inverse::MatrixInverse;
use oxtensor_core::ops::linalg::lu::{LuFactor, LuFactorGrad, PivotToPermutations};
use oxtensor_core::ops::linalg::qr::{Qr, QrGrad};
use oxtensor_core::ops::linalg::solve::Solve;
use oxtensor_core::ops::linalg::solve_triangular::SolveTriangular;
use oxtensor_core::ops::linalg::svd::{Svd, SvdGrad};
use oxtensor_core::ops::logsumexp::LogSumExp;
use oxtensor_core::ops::make_vector::MakeVector;
use oxtensor_core::ops::matmul::Matmul;
use oxtensor_core::ops::nonzero::Nonzero;
use oxtensor_core::ops::permute_rows::PermuteRowElements;
use oxtensor_core::ops::prod_without_zeros::ProdWithoutZeros;
use oxtensor_core::ops::ravel_index::{RavelMultiIndex, UnravelIndex};
use oxtensor_core::ops::reduce::CAReduce;
use oxtensor_core::ops::repeat::Repeat;
use oxtensor_core::ops::scalar_tensor::{ScalarFromTensor, TensorFromScalar};
use oxtensor_core::ops::searchsorted::SearchsortedOp;
use oxtensor_core::ops::shape::{Reshape, Shape, ShapeI};
use oxtensor_core::ops::softmax::Softmax;
use oxtensor_core::ops::sort::{Sort, TakeAlongAxis};
use oxtensor_core::ops::specify_shape::SpecifyShape;
use oxtensor_core::ops::split::Split;
use oxtensor_core::ops::subtensor::{IncSubtensor, Subtensor};
use oxtensor_core::ops::unique::Unique;
use oxtensor_core::ops::OpRef;
use oxtensor_core::scalar::ScalarOp;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use rustc_hash::FxHashMap;
use std::any::TypeId;
use std::sync::OnceLock;

/// Makes the Python object of a core op of one type.
type Make = fn(Python<'_>, &OpRef) -> PyResult<Py<PyAny>>;

/// The registration: `Core => PyClass` for an op whose Python class holds
/// nothing but the core op; `Core => maker [classes]` for one whose object
/// depends on its fields (shared instances, one class per kind), with the
/// classes the maker may choose, so they are added to the module too.
macro_rules! builtin_ops {
    (
        $($core:ty => $class:ident,)*
        ;
        $($core2:ty => $make:path [$($class2:ident),*],)*
    ) => {
        fn table() -> FxHashMap<TypeId, Make> {
            let mut t: FxHashMap<TypeId, Make> = FxHashMap::default();
            $(t.insert(TypeId::of::<$core>(), |py, core| {
                Ok(Py::new(py, PyOp::builtin(core.clone()).add_subclass($class))?.into_any())
            });)*
            $(t.insert(TypeId::of::<$core2>(), $make);)*
            t
        }

        /// Adds every built-in op class to the module.
        pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
            $(m.add_class::<$class>()?;)*
            $($(m.add_class::<$class2>()?;)*)*
            Ok(())
        }
    };
}

builtin_ops! {
    Shape => PyShape,
    ShapeI => PyShapeI,
    Reshape => PyReshape,
    IfElse => PyIfElse,
    GradOp => PyGradOp,
    Dot => PyDot,
    Dot22 => PyDot22,
    Gemv => PyGemv,
    Matmul => PyMatmul,
    MatrixInverse => PyMatrixInverse,
    Det => PyDet,
    SLogDet => PySLogDet,
    Solve => PySolve,
    SolveTriangular => PySolveTriangular,
    LuFactor => PyLuFactor,
    LuFactorGrad => PyLuFactorGrad,
    PivotToPermutations => PyPivotToPermutations,
    Cholesky => PyCholesky,
    CholeskyGrad => PyCholeskyGrad,
    Eigh => PyEigh,
    Eigvalsh => PyEigvalsh,
    EighGrad => PyEighGrad,
    Expm => PyExpm,
    ExpmGrad => PyExpmGrad,
    Convolve1d => PyConvolve1d,
    RFFTOp => PyRFFTOp,
    IRFFTOp => PyIRFFTOp,
    RFFTGrad => PyRFFTGrad,
    IRFFTGrad => PyIRFFTGrad,
    Svd => PySvd,
    SvdGrad => PySvdGrad,
    Qr => PyQr,
    QrGrad => PyQrGrad,
    LogSumExp => PyLogSumExp,
    Argmax => PyArgmax,
    Argmin => PyArgmin,
    CentredSquares => PyCentredSquares,
    TakeAlongAxis => PyTakeAlongAxis,
    CumOp => PyCumOp,
    Subtensor => PySubtensor,
    IncSubtensor => PyIncSubtensor,
    AdvancedSubtensor1 => PyAdvancedSubtensor1,
    AdvancedIncSubtensor1 => PyAdvancedIncSubtensor1,
    AdvancedSubtensor => PyAdvancedSubtensor,
    AdvancedIncSubtensor => PyAdvancedIncSubtensor,
    SpecifyShape => PySpecifyShape,
    Alloc => PyAlloc,
    AllocEmpty => PyAllocEmpty,
    ARange => PyARange,
    Eye => PyEye,
    MakeVector => PyMakeVector,
    Repeat => PyRepeat,
    Join => PyJoin,
    Split => PySplit,
    Nonzero => PyNonzero,
    Bincount => PyBincount,
    Bartlett => PyBartlett,
    CpuContiguous => PyCpuContiguous,
    DeepCopyOp => PyDeepCopyOp,
    FillDiagonal => PyFillDiagonal,
    FillDiagonalOffset => PyFillDiagonalOffset,
    SearchsortedOp => PySearchsortedOp,
    Unique => PyUnique,
    UnravelIndex => PyUnravelIndex,
    RavelMultiIndex => PyRavelMultiIndex,
    ExtractDiag => PyExtractDiag,
    AllocDiag => PyAllocDiag,
    Choose => PyChoose,
    PermuteRowElements => PyPermuteRowElements,
    Jacobian => PyJacobian,
    Blockwise => PyBlockwise,
    ScalarFromTensor => PyScalarFromTensor,
    TensorFromScalar => PyTensorFromScalar,
    ;
    Elemwise => elemwise::object [PyElemwise],
    DimShuffle => dimshuffle::object [PyDimShuffle],
    CAReduce => reduce::object [PyCAReduce, PySum, PyProd, PyMax, PyMin, PyAll, PyAny_],
    ProdWithoutZeros => reduce::prod_without_zeros_object [PyProdWithoutZeros],
    Sort => sort::object [PySortOp, PyArgSortOp],
    Softmax => special::softmax_object [PySoftmax, PyLogSoftmax],
    // Its class is named `CAReduce` too: `pickle/composite.rs` adds it
    // before this table, which then binds the name to `PyCAReduce`.
    CompositeReduce => composite::reduce_object [],
    HostOp => host_object [],
    ScalarOp => super::scalar::object [],
}

/// An op written in Python is its own object.
fn host_object(py: Python<'_>, core: &OpRef) -> PyResult<Py<PyAny>> {
    Ok(core_op::<HostOp>(core)?.obj.clone_ref(py))
}

/// `core` as the op type its table entry was chosen by.
pub(crate) fn core_op<T: 'static>(core: &OpRef) -> PyResult<&T> {
    core.as_any().downcast_ref::<T>().ok_or_else(|| {
        PyTypeError::new_err(format!("op {} is not the expected type", core.describe()))
    })
}

/// The Python object for a core op: one lookup by the op's type.
pub fn op_object(py: Python<'_>, core: &OpRef) -> PyResult<Py<PyAny>> {
    static TABLE: OnceLock<FxHashMap<TypeId, Make>> = OnceLock::new();
    let make = TABLE.get_or_init(table).get(&core.as_any().type_id());
    match make {
        Some(make) => make(py, core),
        None => Err(PyTypeError::new_err(format!(
            "op {} has no Python class",
            core.describe()
        ))),
    }
}
