//! Exception classes, with PyTensor's module paths so `except` clauses and
//! reprs read the same as in PyTensor.

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyNotImplementedError, PyTypeError, PyValueError};

create_exception!(
    oxtensor.graph.utils,
    InconsistencyError,
    PyException,
    "A change would leave the graph inconsistent (cycles, double destruction, ...)."
);
create_exception!(
    oxtensor.graph.utils,
    MissingInputError,
    PyException,
    "A graph needs a variable that was not given as an input."
);
create_exception!(
    oxtensor.graph.features,
    AlreadyThere,
    PyException,
    "Raised by a feature's on_attach to cancel attaching it."
);
create_exception!(
    oxtensor.graph.utils,
    MethodNotDefined,
    PyException,
    "A method that the caller relies on is not defined on this Op."
);
create_exception!(
    oxtensor,
    InternalError,
    PyException,
    "An internal invariant of oxtensor failed: a bug in oxtensor, not in the caller's code."
);
create_exception!(
    oxtensor.gradient,
    DisconnectedInputError,
    PyValueError,
    "A gradient was requested with respect to a variable the cost does not depend on."
);
create_exception!(
    oxtensor.gradient,
    NullTypeGradError,
    PyTypeError,
    "An undefined (NullType) gradient reached a variable whose gradient was requested."
);
create_exception!(
    oxtensor.scalar.basic,
    ComplexError,
    PyNotImplementedError,
    "An operation that is not defined on complex numbers (`%`, `//`) was applied to one."
);
