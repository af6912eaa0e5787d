//! Scalar ops: the element-level operations that `Elemwise` maps over
//! tensors, with PyTensor's class names, `str` forms and output dtype rules.
//! On scalar variables they are graph ops of their own (`scalar_graph.rs`).
//! Mirrors `pytensor/scalar/basic.py` and `scalar/math.py`.

use super::composite::Composite;
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
}

macro_rules! scalar_ops {
    ($($variant:ident => $class:literal, $name:literal, $nin:expr, $rule:ident, $commut:expr;)*) => {
        /// A built-in scalar operation.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[allow(missing_docs)]
        pub enum ScalarKind { $($variant,)* }

        impl ScalarKind {
            /// Every built-in scalar op.
            pub const ALL: &'static [ScalarKind] = &[$(ScalarKind::$variant,)*];

            /// The Python class name (`Add`, `TrueDiv`).
            pub fn class_name(self) -> &'static str {
                match self { $(ScalarKind::$variant => $class,)* }
            }

            /// The instance name, which is its `str` (`add`, `true_div`).
            pub fn name(self) -> &'static str {
                match self { $(ScalarKind::$variant => $name,)* }
            }

            /// Number of inputs (`None`: any number, like `add`).
            pub fn nin(self) -> Option<usize> {
                match self { $(ScalarKind::$variant => $nin,)* }
            }

            /// The output dtype rule.
            pub fn rule(self) -> OutputRule {
                match self { $(ScalarKind::$variant => OutputRule::$rule,)* }
            }

            /// Whether inputs may be swapped (`commutative`).
            pub fn commutative(self) -> bool {
                match self { $(ScalarKind::$variant => $commut,)* }
            }
        }
    };
}

scalar_ops! {
    Add => "Add", "add", None, Upcast, true;
    Sub => "Sub", "sub", Some(2), UpcastNoBool, false;
    Mul => "Mul", "mul", None, Upcast, true;
    TrueDiv => "TrueDiv", "true_div", Some(2), TrueDiv, false;
    IntDiv => "IntDiv", "int_div", Some(2), Upcast, false;
    Mod => "Mod", "mod", Some(2), Upcast, false;
    Pow => "Pow", "pow", Some(2), UpcastMin8, false;
    Maximum => "Maximum", "maximum", Some(2), Upcast, true;
    Minimum => "Minimum", "minimum", Some(2), Upcast, true;
    Neg => "Neg", "neg", Some(1), SameNoBool, false;
    Abs => "Abs", "abs", Some(1), ComplexToReal, false;
    Sign => "Sign", "sign", Some(1), SameReal, false;
    Sqr => "Sqr", "sqr", Some(1), Upcast, false;
    Sqrt => "Sqrt", "sqrt", Some(1), UpgradeToFloat, false;
    Exp => "Exp", "exp", Some(1), UpgradeToFloat, false;
    Log => "Log", "log", Some(1), UpgradeToFloat, false;
    Log1p => "Log1p", "log1p", Some(1), UpgradeToFloat, false;
    Expm1 => "Expm1", "expm1", Some(1), UpgradeToFloat, false;
    Sin => "Sin", "sin", Some(1), UpgradeToFloat, false;
    Cos => "Cos", "cos", Some(1), UpgradeToFloat, false;
    Tan => "Tan", "tan", Some(1), UpgradeToFloat, false;
    Tanh => "Tanh", "tanh", Some(1), UpgradeToFloat, false;
    Sigmoid => "Sigmoid", "sigmoid", Some(1), UpgradeToFloatNoComplex, false;
    Softplus => "Softplus", "softplus", Some(1), UpgradeToFloatNoComplex, false;
    Reciprocal => "Reciprocal", "reciprocal", Some(1), UpgradeToFloat, false;
    Floor => "Floor", "floor", Some(1), UpgradeToFloatNoComplex, false;
    Ceil => "Ceil", "ceil", Some(1), UpgradeToFloatNoComplex, false;
    Lt => "LT", "lt", Some(2), Bool, false;
    Gt => "GT", "gt", Some(2), Bool, false;
    Le => "LE", "le", Some(2), Bool, false;
    Ge => "GE", "ge", Some(2), Bool, false;
    Eq => "EQ", "eq", Some(2), Bool, true;
    Neq => "NEQ", "neq", Some(2), Bool, true;
    IsNan => "IsNan", "isnan", Some(1), Bool, false;
    IsInf => "IsInf", "isinf", Some(1), Bool, false;
    And => "AND", "and_", Some(2), Bitwise, true;
    Or => "OR", "or_", Some(2), Bitwise, true;
    Xor => "XOR", "xor", Some(2), Bitwise, true;
    Invert => "Invert", "invert", Some(1), Bitwise, false;
    Identity => "Identity", "identity", Some(1), Upcast, false;
    Second => "Second", "second", Some(2), UpcastSkipFirst, false;
    Switch => "Switch", "switch", Some(3), UpcastSkipFirst, false;
    Exp2 => "Exp2", "exp2", Some(1), UpgradeToFloat, false;
    Log2 => "Log2", "log2", Some(1), UpgradeToFloat, false;
    Log10 => "Log10", "log10", Some(1), UpgradeToFloat, false;
    RoundHalfToEven => "RoundHalfToEven", "RoundHalfToEven", Some(1), SameFloatOnly, false;
    RoundHalfAwayFromZero => "RoundHalfAwayFromZero", "RoundHalfAwayFromZero", Some(1), SameFloatOnly, false;
    Trunc => "Trunc", "trunc", Some(1), UpgradeToFloatNoComplex, false;
    ArcSin => "ArcSin", "arcsin", Some(1), UpgradeToFloat, false;
    ArcCos => "ArcCos", "arccos", Some(1), UpgradeToFloat, false;
    ArcTan => "ArcTan", "arctan", Some(1), UpgradeToFloat, false;
    // The rules below refuse complex inputs where PyTensor's types accept
    // them (its kernels then fail for most): oxtensor has no complex kernels
    // for these and says so when the graph is built.
    ArcTan2 => "ArcTan2", "arctan2", Some(2), UpgradeToFloatNoComplex, false;
    Sinh => "Sinh", "sinh", Some(1), UpgradeToFloat, false;
    Cosh => "Cosh", "cosh", Some(1), UpgradeToFloat, false;
    ArcSinh => "ArcSinh", "arcsinh", Some(1), UpgradeToFloat, false;
    ArcCosh => "ArcCosh", "arccosh", Some(1), UpgradeToFloat, false;
    ArcTanh => "ArcTanh", "arctanh", Some(1), UpgradeToFloat, false;
    Deg2Rad => "Deg2Rad", "deg2rad", Some(1), UpgradeToFloatNoComplex, false;
    Rad2Deg => "Rad2Deg", "rad2deg", Some(1), UpgradeToFloatNoComplex, false;
    Log1mexp => "Log1mexp", "Log1mexp", Some(1), UpgradeToFloatNoComplex, false;
    Erf => "Erf", "erf", Some(1), UpgradeToFloatNoComplex, false;
    Erfc => "Erfc", "erfc", Some(1), UpgradeToFloatNoComplex, false;
    Erfcx => "Erfcx", "erfcx", Some(1), UpgradeToFloatNoComplex, false;
    Erfinv => "Erfinv", "erfinv", Some(1), UpgradeToFloatNoComplex, false;
    Erfcinv => "Erfcinv", "erfcinv", Some(1), UpgradeToFloatNoComplex, false;
    Gamma => "Gamma", "gamma", Some(1), UpgradeToFloatNoComplex, false;
    GammaLn => "GammaLn", "gammaln", Some(1), UpgradeToFloatNoComplex, false;
    Psi => "Psi", "psi", Some(1), UpgradeToFloatNoComplex, false;
    TriGamma => "TriGamma", "tri_gamma", Some(1), UpgradeToFloatNoComplex, false;
    Clip => "Clip", "clip", Some(3), UpcastNoComplex, false;
    Real => "Real", "real", Some(1), ComplexToReal, false;
    Imag => "Imag", "imag", Some(1), ComplexToReal, false;
    Conj => "Conj", "conj", Some(1), UpcastMin8, false;
    Angle => "Angle", "angle", Some(1), Float64, false;
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
}

impl ScalarOp {
    /// Python class name (`Add`, `Cast`, `Composite`).
    pub fn class_name(&self) -> &'static str {
        match self {
            ScalarOp::Kind(k) => k.class_name(),
            ScalarOp::Cast(_) => "Cast",
            ScalarOp::Composite(_) => "Composite",
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
        }
    }

    /// Number of outputs.
    pub fn nout(&self) -> usize {
        match self {
            ScalarOp::Composite(c) => c.nout(),
            _ => 1,
        }
    }

    /// Every output's dtype for these input dtypes (one for all but
    /// composites), or a `TypeError` naming the op.
    pub fn output_dtypes(&self, inputs: &[DType]) -> Result<SmallVec<[DType; 2]>> {
        match self {
            ScalarOp::Composite(c) => c.output_dtypes_for(inputs),
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
        assert_eq!(op(K::Add).output_dtype(&[Float32, Int8]).unwrap(), Float32);
        assert_eq!(op(K::Add).output_dtype(&[Int32, Float32]).unwrap(), Float64);
        assert_eq!(
            op(K::TrueDiv).output_dtype(&[Int32, Int8]).unwrap(),
            Float64
        );
        assert_eq!(
            op(K::TrueDiv).output_dtype(&[Float32, Int8]).unwrap(),
            Float32
        );
        assert_eq!(op(K::IntDiv).output_dtype(&[Int32, Int8]).unwrap(), Int32);
        assert_eq!(op(K::Exp).output_dtype(&[Int16]).unwrap(), Float32);
        assert_eq!(op(K::Exp).output_dtype(&[Int64]).unwrap(), Float64);
        assert_eq!(op(K::Lt).output_dtype(&[Float64, Int8]).unwrap(), Bool);
        assert_eq!(op(K::Abs).output_dtype(&[Complex64]).unwrap(), Float32);
        assert_eq!(
            op(K::Switch).output_dtype(&[Bool, Int8, Float32]).unwrap(),
            Float32
        );
        assert!(op(K::Sub).output_dtype(&[Bool, Bool]).is_err());
        assert_eq!(op(K::Sub).output_dtype(&[Bool, Int8]).unwrap(), Int8);
        assert_eq!(op(K::Pow).output_dtype(&[Bool, Bool]).unwrap(), Int8);
        assert_eq!(op(K::Mod).output_dtype(&[Bool, Bool]).unwrap(), Bool);
        assert!(op(K::And).output_dtype(&[Bool, Int8]).is_err());
        assert_eq!(op(K::And).output_dtype(&[Bool, Bool]).unwrap(), Bool);
        assert!(op(K::Sign).output_dtype(&[Complex64]).is_err());
        assert!(op(K::And).output_dtype(&[Float64, Int8]).is_err());
        assert!(op(K::Neg).output_dtype(&[Float64, Float64]).is_err());
        assert_eq!(ScalarOp::Cast(Float32).to_string(), "Cast{float32}");
        assert_eq!(op(K::Erf).output_dtype(&[Int8]).unwrap(), Float32);
        assert_eq!(
            op(K::ArcTan2).output_dtype(&[Int8, UInt16]).unwrap(),
            Float32
        );
        assert_eq!(
            op(K::ArcTan2).output_dtype(&[Bool, Float16]).unwrap(),
            Float32
        );
        assert!(op(K::Erf).output_dtype(&[Complex64]).is_err());
        assert!(op(K::RoundHalfToEven).output_dtype(&[Int64]).is_err());
        assert_eq!(
            op(K::RoundHalfToEven).output_dtype(&[Float16]).unwrap(),
            Float16
        );
        assert_eq!(
            op(K::Clip).output_dtype(&[Int8, UInt8, Int8]).unwrap(),
            Int16
        );
        assert_eq!(op(K::Angle).output_dtype(&[Complex64]).unwrap(), Float64);
        assert_eq!(op(K::Imag).output_dtype(&[Complex64]).unwrap(), Float32);
        assert_eq!(op(K::Conj).output_dtype(&[Bool]).unwrap(), Int8);
    }
}
