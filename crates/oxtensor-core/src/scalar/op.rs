//! `ScalarOp`, a scalar op instance (a kind of the table in `table.rs`, a
//! cast, or a composite), and its output dtype rules (PyTensor's
//! `output_types_preference`). On scalar variables scalar ops are graph ops
//! of their own (`ops/scalar_graph.rs`). Mirrors `pytensor/scalar/basic.py`.

use super::composite::Composite;
use super::scalar_loop::ScalarLoop;
use super::table::ScalarKind;
use crate::dtype::{floatx, upcast, DType};
use crate::error::{Error, Result};
use smallvec::{smallvec, SmallVec};
use std::fmt;
use std::sync::Arc;

/// How a scalar op's output dtype follows from its inputs' dtypes
/// (PyTensor's `output_types_preference`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputRule {
    /// NumPy promotion of the inputs (`upcast_out`).
    Upcast,
    /// Promotion, refusing a bool result (`upcast_out_nobool`: `sub`).
    UpcastNoBool,
    /// The promoted dtype, raised to a float (`upgrade_to_float`).
    UpgradeToFloat,
    /// Like `UpgradeToFloat`, refusing complex inputs.
    UpgradeToFloatNoComplex,
    /// Always bool (comparisons, `isnan`).
    Bool,
    /// Promotion of integer inputs, or bool for all-bool inputs (bitwise ops).
    Bitwise,
    /// Floats and complex upcast; two discrete inputs give floatX (`true_div`).
    TrueDiv,
    /// Same dtype as the input, refusing bool (`neg`).
    SameNoBool,
    /// Same dtype, complex becoming its real part (`abs`).
    ComplexToReal,
    /// The promoted dtype of the inputs (`second`, `switch` skip the condition).
    UpcastSkipFirst,
    /// Same dtype as the input, floats only (`same_out_float_only`: rounding).
    SameFloatOnly,
    /// Promotion, refusing complex inputs (`upcast_out_no_complex`: `clip`).
    UpcastNoComplex,
    /// Always float64 (`angle`).
    Float64,
    /// Promotion, bool becoming int8 (`upcast_out_min8`: `pow`, `conj`).
    UpcastMin8,
    /// Same dtype, refusing bool and complex inputs (`sign`).
    SameReal,
    /// An integer order then real inputs, raised to a float (`polygamma`).
    IntOrderFloat,
}

impl ScalarKind {
    /// PyTensor's `str`: the instance name, except for the scalar ops
    /// PyTensor creates without one, which print their class name
    /// (`str(pt.maximum.scalar_op)` is `Maximum`, `str(pt.and_.scalar_op)`
    /// is `AND`, so the `Elemwise` prints `And` and not `And_`).
    pub fn str_form(self) -> &'static str {
        use ScalarKind::*;
        match self {
            Maximum | Minimum | Abs | Softplus | Lt | Gt | Le | Ge | Eq | Neq | IsNan | IsInf
            | And | Or | Xor | Invert | Switch => self.class_name(),
            _ => self.name(),
        }
    }
}

/// A scalar op instance: a kind, a cast to a dtype, or a composite of
/// those (shared: fusion builds one per group and nodes hold handles).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ScalarOp {
    /// A built-in operation.
    Kind(ScalarKind),
    /// `Cast{dtype}`: convert to a dtype.
    Cast(DType),
    /// A scalar graph computed as one op (`Composite{...}`).
    Composite(Arc<Composite>),
    /// A scalar step repeated `n_steps` times or until a condition holds.
    Loop(Arc<ScalarLoop>),
}

impl ScalarOp {
    /// Python class name (`Add`, `Cast`, `Composite`).
    pub fn class_name(&self) -> &'static str {
        match self {
            ScalarOp::Kind(k) => k.class_name(),
            ScalarOp::Cast(_) => "Cast",
            ScalarOp::Composite(_) => "Composite",
            ScalarOp::Loop(_) => "ScalarLoop",
        }
    }

    /// The built-in kind, when this is one.
    pub fn kind(&self) -> Option<ScalarKind> {
        match self {
            ScalarOp::Kind(k) => Some(*k),
            _ => None,
        }
    }

    /// Number of inputs, if fixed.
    pub fn nin(&self) -> Option<usize> {
        match self {
            ScalarOp::Kind(k) => k.nin(),
            ScalarOp::Cast(_) => Some(1),
            ScalarOp::Composite(c) => Some(c.nin()),
            ScalarOp::Loop(l) => Some(l.nin()),
        }
    }

    /// Number of outputs.
    pub fn nout(&self) -> usize {
        match self {
            ScalarOp::Composite(c) => c.nout(),
            ScalarOp::Loop(l) => l.nout(),
            _ => 1,
        }
    }

    /// Every output's dtype for these input dtypes (one for all but
    /// composites), or a `TypeError` naming the op.
    pub fn output_dtypes(&self, inputs: &[DType]) -> Result<SmallVec<[DType; 2]>> {
        match self {
            ScalarOp::Composite(c) => c.output_dtypes_for(inputs),
            ScalarOp::Loop(l) => l.output_dtypes_for(inputs),
            _ => Ok(smallvec![self.output_dtype(inputs)?]),
        }
    }

    /// The (first) output dtype for these input dtypes, or a `TypeError`
    /// naming the op.
    pub fn output_dtype(&self, inputs: &[DType]) -> Result<DType> {
        self.check_arity(inputs.len())?;
        let kind = match self {
            ScalarOp::Cast(d) => return Ok(*d),
            ScalarOp::Composite(c) => return Ok(c.output_dtypes_for(inputs)?[0]),
            ScalarOp::Loop(l) => return Ok(l.output_dtypes_for(inputs)?[0]),
            ScalarOp::Kind(k) => *k,
        };
        // Errors name the op as users call it (`and_`, `maximum`), not by its
        // class-like `str` (`AND`, `Maximum`).
        let refuse = |what: &str| {
            Err(Error::Type(format!(
                "{} does not accept {what} inputs, got {}",
                kind.name(),
                fmt_dtypes(inputs)
            )))
        };
        let up = upcast(inputs)?;
        Ok(match kind.rule() {
            OutputRule::Upcast => up,
            OutputRule::UpcastNoBool if up == DType::Bool => return refuse("bool"),
            OutputRule::UpcastNoBool => up,
            OutputRule::UpgradeToFloat => upgrade_each(inputs)?,
            OutputRule::UpgradeToFloatNoComplex if up.is_complex() => return refuse("complex"),
            OutputRule::UpgradeToFloatNoComplex => upgrade_each(inputs)?,
            OutputRule::Bool => DType::Bool,
            OutputRule::Bitwise if !up.is_discrete() => return refuse("float or complex"),
            OutputRule::Bitwise if up != DType::Bool && inputs.contains(&DType::Bool) => {
                return refuse("mixed bool and integer")
            }
            OutputRule::Bitwise => up,
            OutputRule::TrueDiv if inputs.iter().all(|d| d.is_discrete()) => floatx(),
            OutputRule::TrueDiv => up,
            OutputRule::SameNoBool if up == DType::Bool => return refuse("bool"),
            OutputRule::SameNoBool => up,
            OutputRule::ComplexToReal => up.real(),
            OutputRule::UpcastSkipFirst => upcast(&inputs[1..])?,
            OutputRule::SameFloatOnly if !up.is_float() => return refuse("non-float"),
            OutputRule::SameFloatOnly => up,
            OutputRule::UpcastNoComplex if up.is_complex() => return refuse("complex"),
            OutputRule::UpcastNoComplex => up,
            OutputRule::Float64 => DType::Float64,
            OutputRule::UpcastMin8 if up == DType::Bool => DType::Int8,
            OutputRule::UpcastMin8 => up,
            OutputRule::SameReal if up == DType::Bool => return refuse("bool"),
            OutputRule::SameReal if up.is_complex() => return refuse("complex"),
            OutputRule::SameReal => up,
            OutputRule::IntOrderFloat => match inputs.split_first() {
                Some((order, _)) if !order.is_discrete() => {
                    return Err(Error::Type(format!(
                        "{}: the order must be discrete (an integer), got {}",
                        kind.name(),
                        fmt_dtypes(inputs)
                    )))
                }
                Some((_, rest)) if !rest.is_empty() && !up.is_complex() => upgrade_each(rest)?,
                _ => {
                    return Err(Error::Type(format!(
                        "{}: complex argument not supported, got {}",
                        kind.name(),
                        fmt_dtypes(inputs)
                    )))
                }
            },
        })
    }

    fn check_arity(&self, n: usize) -> Result<()> {
        match self.nin() {
            Some(want) if want != n => Err(Error::Type(format!(
                "Wrong number of inputs for {self}.make_node (got {n}, expected {want})"
            ))),
            None if n == 0 => Err(Error::Type(format!("{self} needs at least one input"))),
            _ => Ok(()),
        }
    }
}

/// PyTensor's `upgrade_to_float`: each input raised to a float, then the
/// promotion (`arctan2(int8, uint16)` is float32, not float64).
fn upgrade_each(inputs: &[DType]) -> Result<DType> {
    let floats: Vec<DType> = inputs.iter().map(|d| d.upgrade_to_float()).collect();
    upcast(&floats)
}

fn fmt_dtypes(dtypes: &[DType]) -> String {
    let names: Vec<&str> = dtypes.iter().map(|d| d.name()).collect();
    format!("({})", names.join(", "))
}

impl fmt::Display for ScalarOp {
    /// The scalar op's `str`: PyTensor's (see [`ScalarKind::str_form`]), or `Cast{float32}`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScalarOp::Kind(k) => f.write_str(k.str_form()),
            ScalarOp::Cast(d) => write!(f, "Cast{{{d}}}"),
            ScalarOp::Composite(c) => f.write_str(c.name()),
            ScalarOp::Loop(l) => f.write_str(l.name()),
        }
    }
}

impl From<ScalarKind> for ScalarOp {
    fn from(k: ScalarKind) -> Self {
        ScalarOp::Kind(k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use DType::*;
    use ScalarKind as K;

    #[test]
    fn dtype_rules() {
        let op = |k: K| ScalarOp::Kind(k);
        // (op, input dtypes, output dtype)
        let typed: [(K, &[DType], DType); 22] = [
            (K::Add, &[Float32, Int8], Float32),
            (K::Add, &[Int32, Float32], Float64),
            (K::TrueDiv, &[Int32, Int8], Float64),
            (K::TrueDiv, &[Float32, Int8], Float32),
            (K::IntDiv, &[Int32, Int8], Int32),
            (K::Exp, &[Int16], Float32),
            (K::Exp, &[Int64], Float64),
            (K::Lt, &[Float64, Int8], Bool),
            (K::Abs, &[Complex64], Float32),
            (K::Switch, &[Bool, Int8, Float32], Float32),
            (K::Sub, &[Bool, Int8], Int8),
            (K::Pow, &[Bool, Bool], Int8),
            (K::Mod, &[Bool, Bool], Bool),
            (K::And, &[Bool, Bool], Bool),
            (K::Erf, &[Int8], Float32),
            (K::ArcTan2, &[Int8, UInt16], Float32),
            (K::ArcTan2, &[Bool, Float16], Float32),
            (K::RoundHalfToEven, &[Float16], Float16),
            (K::Clip, &[Int8, UInt8, Int8], Int16),
            (K::Angle, &[Complex64], Float64),
            (K::Imag, &[Complex64], Float32),
            (K::Conj, &[Bool], Int8),
        ];
        for (k, ins, want) in typed {
            assert_eq!(op(k).output_dtype(ins).unwrap(), want, "{k:?} of {ins:?}");
        }
        // Input dtypes an op refuses (or the wrong number of them).
        let refused: [(K, &[DType]); 7] = [
            (K::Sub, &[Bool, Bool]),
            (K::And, &[Bool, Int8]),
            (K::Sign, &[Complex64]),
            (K::And, &[Float64, Int8]),
            (K::Neg, &[Float64, Float64]),
            (K::Erfc, &[Complex64]),
            (K::RoundHalfToEven, &[Int64]),
        ];
        for (k, ins) in refused {
            assert!(op(k).output_dtype(ins).is_err(), "{k:?} of {ins:?}");
        }
        assert_eq!(ScalarOp::Cast(Float32).to_string(), "Cast{float32}");
    }
}
