//! The scalar op table: one line per built-in scalar op, the single
//! source from which the rest is derived. A line gives the variant, the
//! Python class name, the instance name (its `str` unless
//! [`ScalarKind::str_form`] says otherwise), the number of inputs (`None`:
//! any), the output dtype rule, flags, and, for ops computed by the generic
//! float kernel, the element function as a closure over a `T: Float`.
//!
//! Flags: `commutative` (inputs may be swapped), `fused` (the fused block
//! kernel runs it: `kernels/fused/support.rs`), `method` (a
//! `TensorVariable` method, `x.exp()`), `special` (PyTensor's
//! `scalar/math.py` module rather than `scalar/basic.py`).
//!
//! Derived from the table: the kinds and their names here; the float
//! kernel's generic path and the element functions of the tiny path
//! (`kernels/elemwise/`, with `vmath`'s vector loops as overrides); the
//! PyO3 classes and `_core.scalar_kinds()`, from which the Python modules
//! take their names; JAX's functions by `jax.numpy` name. The gradients
//! are graphs, in `ops/scalar_grad*.rs`, whose coverage test fails for a
//! kind without one. "Adding an elementwise op" in `docs/architecture.md`
//! lists the files a new op touches.

use super::OutputRule;
use num_traits::Float;

/// A kind's function of one element, as a plain function pointer (for
/// callers that pick functions at run time, like `kernels/tiny.rs`).
#[derive(Clone, Copy, Debug)]
pub enum ScalarFn<T> {
    /// A function of one element.
    Unary(fn(T) -> T),
    /// Applied left to right over more than two operands (`add` and `mul`
    /// take any number), as the tensor kernel folds them.
    Binary(fn(T, T) -> T),
}

/// Receives a kind's element function as its own closure type, so a
/// kernel loop built from it is compiled (and vectorised) for that
/// function, not called through a pointer per element.
pub trait ElemVisitor<T> {
    /// What the visit gives back.
    type Out;
    /// A function of one element.
    fn unary(self, f: impl Fn(T) -> T + Sync + Copy) -> Self::Out;
    /// A function of two elements (folded over more for `add` and `mul`).
    fn binary(self, f: impl Fn(T, T) -> T + Sync + Copy) -> Self::Out;
}

/// Flag bits of the table's `[...]` column, named as written there.
#[allow(non_upper_case_globals)]
mod flag {
    pub const commutative: u8 = 1;
    pub const fused: u8 = 2;
    pub const method: u8 = 4;
    pub const special: u8 = 8;
}

/// The element function of one table line, given to a visitor.
macro_rules! visit_elem {
    ($v:ident, $t:ty) => {
        None
    };
    ($v:ident, $t:ty, |$x:ident| $body:expr) => {
        Some($v.unary(|$x: $t| $body))
    };
    ($v:ident, $t:ty, |$x:ident, $y:ident| $body:expr) => {
        Some($v.binary(|$x: $t, $y: $t| $body))
    };
}

/// The element function of one table line, as a function pointer.
macro_rules! elem_ptr {
    ($t:ty) => {
        None
    };
    ($t:ty, |$x:ident| $body:expr) => {
        Some(ScalarFn::Unary(|$x: $t| $body))
    };
    ($t:ty, |$x:ident, $y:ident| $body:expr) => {
        Some(ScalarFn::Binary(|$x: $t, $y: $t| $body))
    };
}

macro_rules! scalar_ops {
    ($($variant:ident => $class:literal, $name:literal, $nin:expr, $rule:ident,
       [$($flag:ident),*] $(, |$($arg:ident),+| $body:expr)?;)*) => {
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

            fn flags(self) -> u8 {
                match self { $(ScalarKind::$variant => 0 $(| flag::$flag)*,)* }
            }

            /// The element function on floats, handed to `visitor`; `None`
            /// for kinds the float kernel computes its own way.
            pub fn visit_float<T: Float, V: ElemVisitor<T>>(self, visitor: V) -> Option<V::Out> {
                match self { $(ScalarKind::$variant => visit_elem!(visitor, T $(, |$($arg),+| $body)?),)* }
            }

            /// The element function on floats as a function pointer, when
            /// the table gives one.
            pub fn float_fn<T: Float>(self) -> Option<ScalarFn<T>> {
                match self { $(ScalarKind::$variant => elem_ptr!(T $(, |$($arg),+| $body)?),)* }
            }
        }
    };
}

scalar_ops! {
    Add => "Add", "add", None, Upcast, [commutative, fused], |x, y| x + y;
    Sub => "Sub", "sub", Some(2), UpcastNoBool, [fused], |x, y| x - y;
    Mul => "Mul", "mul", None, Upcast, [commutative, fused], |x, y| x * y;
    TrueDiv => "TrueDiv", "true_div", Some(2), TrueDiv, [fused], |x, y| x / y;
    IntDiv => "IntDiv", "int_div", Some(2), Upcast, [];
    Mod => "Mod", "mod", Some(2), Upcast, [];
    Pow => "Pow", "pow", Some(2), UpcastMin8, [fused];
    Maximum => "Maximum", "maximum", Some(2), Upcast, [commutative, fused];
    Minimum => "Minimum", "minimum", Some(2), Upcast, [commutative, fused];
    Neg => "Neg", "neg", Some(1), SameNoBool, [fused], |x| -x;
    Abs => "Abs", "abs", Some(1), ComplexToReal, [fused], |x| x.abs();
    Sign => "Sign", "sign", Some(1), SameReal, [];
    Sqr => "Sqr", "sqr", Some(1), Upcast, [fused], |x| x * x;
    Sqrt => "Sqrt", "sqrt", Some(1), UpgradeToFloat, [fused, method], |x| x.sqrt();
    Exp => "Exp", "exp", Some(1), UpgradeToFloat, [fused, method];
    Log => "Log", "log", Some(1), UpgradeToFloat, [fused, method];
    Log1p => "Log1p", "log1p", Some(1), UpgradeToFloat, [fused, method];
    Expm1 => "Expm1", "expm1", Some(1), UpgradeToFloat, [fused, method];
    Sin => "Sin", "sin", Some(1), UpgradeToFloat, [fused, method];
    Cos => "Cos", "cos", Some(1), UpgradeToFloat, [fused, method];
    Tan => "Tan", "tan", Some(1), UpgradeToFloat, [fused, method];
    Tanh => "Tanh", "tanh", Some(1), UpgradeToFloat, [fused, method];
    Sigmoid => "Sigmoid", "sigmoid", Some(1), UpgradeToFloatNoComplex, [fused];
    Softplus => "Softplus", "softplus", Some(1), UpgradeToFloatNoComplex, [fused];
    Reciprocal => "Reciprocal", "reciprocal", Some(1), UpgradeToFloat, [fused], |x| x.recip();
    Floor => "Floor", "floor", Some(1), UpgradeToFloatNoComplex, [method], |x| x.floor();
    Ceil => "Ceil", "ceil", Some(1), UpgradeToFloatNoComplex, [method], |x| x.ceil();
    Lt => "LT", "lt", Some(2), Bool, [];
    Gt => "GT", "gt", Some(2), Bool, [];
    Le => "LE", "le", Some(2), Bool, [];
    Ge => "GE", "ge", Some(2), Bool, [];
    Eq => "EQ", "eq", Some(2), Bool, [commutative];
    Neq => "NEQ", "neq", Some(2), Bool, [commutative];
    IsNan => "IsNan", "isnan", Some(1), Bool, [];
    IsInf => "IsInf", "isinf", Some(1), Bool, [];
    And => "AND", "and_", Some(2), Bitwise, [commutative];
    Or => "OR", "or_", Some(2), Bitwise, [commutative];
    Xor => "XOR", "xor", Some(2), Bitwise, [commutative];
    Invert => "Invert", "invert", Some(1), Bitwise, [];
    Identity => "Identity", "identity", Some(1), Upcast, [fused];
    Second => "Second", "second", Some(2), UpcastSkipFirst, [];
    Switch => "Switch", "switch", Some(3), UpcastSkipFirst, [];
    Exp2 => "Exp2", "exp2", Some(1), UpgradeToFloat, [fused, method];
    Log2 => "Log2", "log2", Some(1), UpgradeToFloat, [fused, method];
    Log10 => "Log10", "log10", Some(1), UpgradeToFloat, [fused, method];
    RoundHalfToEven => "RoundHalfToEven", "RoundHalfToEven", Some(1), SameFloatOnly, [];
    RoundHalfAwayFromZero => "RoundHalfAwayFromZero", "RoundHalfAwayFromZero", Some(1), SameFloatOnly, [];
    Trunc => "Trunc", "trunc", Some(1), UpgradeToFloatNoComplex, [], |x| x.trunc();
    ArcSin => "ArcSin", "arcsin", Some(1), UpgradeToFloat, [method];
    ArcCos => "ArcCos", "arccos", Some(1), UpgradeToFloat, [method];
    ArcTan => "ArcTan", "arctan", Some(1), UpgradeToFloat, [method];
    // The rules below refuse complex inputs where PyTensor's types accept
    // them (its kernels then fail for most): oxtensor has no complex kernels
    // for these and says so when the graph is built.
    ArcTan2 => "ArcTan2", "arctan2", Some(2), UpgradeToFloatNoComplex, [];
    Sinh => "Sinh", "sinh", Some(1), UpgradeToFloat, [fused, method];
    Cosh => "Cosh", "cosh", Some(1), UpgradeToFloat, [fused, method];
    ArcSinh => "ArcSinh", "arcsinh", Some(1), UpgradeToFloat, [method];
    ArcCosh => "ArcCosh", "arccosh", Some(1), UpgradeToFloat, [method];
    ArcTanh => "ArcTanh", "arctanh", Some(1), UpgradeToFloat, [method];
    Deg2Rad => "Deg2Rad", "deg2rad", Some(1), UpgradeToFloatNoComplex, [method];
    Rad2Deg => "Rad2Deg", "rad2deg", Some(1), UpgradeToFloatNoComplex, [method];
    Log1mexp => "Log1mexp", "Log1mexp", Some(1), UpgradeToFloatNoComplex, [special];
    Erf => "Erf", "erf", Some(1), UpgradeToFloat, [special];
    Erfc => "Erfc", "erfc", Some(1), UpgradeToFloatNoComplex, [special];
    Erfcx => "Erfcx", "erfcx", Some(1), UpgradeToFloatNoComplex, [special];
    Erfinv => "Erfinv", "erfinv", Some(1), UpgradeToFloatNoComplex, [special];
    Erfcinv => "Erfcinv", "erfcinv", Some(1), UpgradeToFloatNoComplex, [special];
    Gamma => "Gamma", "gamma", Some(1), UpgradeToFloatNoComplex, [special];
    GammaLn => "GammaLn", "gammaln", Some(1), UpgradeToFloatNoComplex, [special];
    Psi => "Psi", "psi", Some(1), UpgradeToFloatNoComplex, [special];
    TriGamma => "TriGamma", "tri_gamma", Some(1), UpgradeToFloatNoComplex, [special];
    Polygamma => "Polygamma", "polygamma", Some(2), IntOrderFloat, [special];
    Clip => "Clip", "clip", Some(3), UpcastNoComplex, [];
    Real => "Real", "real", Some(1), ComplexToReal, [];
    Imag => "Imag", "imag", Some(1), ComplexToReal, [];
    Conj => "Conj", "conj", Some(1), UpcastMin8, [];
    Angle => "Angle", "angle", Some(1), Float64, [];
    Hypot => "Hypot", "hypot", Some(2), UpgradeToFloatNoComplex, [fused], |x, y| x.hypot(y);
    XLogY => "XLogY", "xlogy", Some(2), UpgradeToFloatNoComplex, [fused, special], |x, y| x_times(x, y, y.ln());
    XLog1pY => "XLog1pY", "xlog1py", Some(2), UpgradeToFloatNoComplex, [fused, special], |x, y| x_times(x, y, y.ln_1p());
    // SciPy's special functions (`kernels/elemwise/special*.rs`), float
    // only. The `*_der*` kinds are derivatives in a shape parameter, which
    // PyTensor builds as `ScalarLoop` graphs: here they are kernels.
    GammaInc => "GammaInc", "gammainc", Some(2), UpgradeToFloatNoComplex, [special];
    GammaIncC => "GammaIncC", "gammaincc", Some(2), UpgradeToFloatNoComplex, [special];
    GammaIncInv => "GammaIncInv", "gammaincinv", Some(2), UpgradeToFloatNoComplex, [special];
    GammaIncCInv => "GammaIncCInv", "gammainccinv", Some(2), UpgradeToFloatNoComplex, [special];
    GammaU => "GammaU", "gammau", Some(2), UpgradeToFloatNoComplex, [special];
    GammaL => "GammaL", "gammal", Some(2), UpgradeToFloatNoComplex, [special];
    GammaIncDer => "GammaIncDer", "gammainc_der", Some(2), UpgradeToFloatNoComplex, [special];
    J0 => "J0", "j0", Some(1), UpgradeToFloatNoComplex, [special];
    J1 => "J1", "j1", Some(1), UpgradeToFloatNoComplex, [special];
    Jv => "Jv", "jv", Some(2), UpgradeToFloatNoComplex, [special];
    I0 => "I0", "i0", Some(1), UpgradeToFloatNoComplex, [special];
    I1 => "I1", "i1", Some(1), UpgradeToFloatNoComplex, [special];
    Iv => "Iv", "iv", Some(2), UpgradeToFloatNoComplex, [special];
    Ive => "Ive", "ive", Some(2), UpgradeToFloatNoComplex, [special];
    Kve => "Kve", "kve", Some(2), UpgradeToFloatNoComplex, [special];
    OwensT => "Owens_t", "owens_t", Some(2), UpgradeToFloatNoComplex, [special];
    BetaInc => "BetaInc", "betainc", Some(3), UpgradeToFloatNoComplex, [special];
    BetaIncInv => "BetaIncInv", "betaincinv", Some(3), UpgradeToFloatNoComplex, [special];
    BetaIncDerA => "BetaIncDerA", "betainc_der_a", Some(3), UpgradeToFloatNoComplex, [special];
    BetaIncDerB => "BetaIncDerB", "betainc_der_b", Some(3), UpgradeToFloatNoComplex, [special];
    Hyp2F1 => "Hyp2F1", "hyp2f1", Some(4), UpgradeToFloatNoComplex, [special];
    Hyp2F1DerA => "Hyp2F1DerA", "hyp2f1_der_a", Some(4), UpgradeToFloatNoComplex, [special];
    Hyp2F1DerC => "Hyp2F1DerC", "hyp2f1_der_c", Some(4), UpgradeToFloatNoComplex, [special];
}

/// `x * log_y` (`log_y` a logarithm of `y`), 0 where `x` is 0 whatever the
/// logarithm (-inf at the boundary, NaN outside the domain), as SciPy's
/// `xlogy`: one kernel rather than a `switch` graph, so no rewrite can
/// distribute the product and meet `0 * -inf` or `a*(-inf) - (-inf)`. A NaN
/// `y` still gives NaN.
fn x_times<T: Float>(x: T, y: T, log_y: T) -> T {
    if x == T::zero() && !y.is_nan() {
        T::zero()
    } else {
        x * log_y
    }
}

impl ScalarKind {
    /// Whether inputs may be swapped (`commutative`).
    pub fn commutative(self) -> bool {
        self.flags() & flag::commutative != 0
    }

    /// Whether the fused block kernel runs this kind (float32, float64).
    pub fn fused(self) -> bool {
        self.flags() & flag::fused != 0
    }

    /// Whether tensors have it as a method of no arguments (`x.exp()`).
    pub fn is_method(self) -> bool {
        self.flags() & flag::method != 0
    }

    /// Whether PyTensor defines it in `scalar/math.py` (special functions).
    pub fn is_special(self) -> bool {
        self.flags() & flag::special != 0
    }

    /// The name of its module attribute in Python: the instance name, or
    /// for the ops PyTensor names by class (`Log1mexp`), the class name in
    /// snake case (`log1mexp`, `round_half_to_even`).
    pub fn attr_name(self) -> String {
        let name = self.name();
        if !name.chars().any(|c| c.is_ascii_uppercase()) {
            return name.to_string();
        }
        let mut out = String::new();
        for (i, c) in self.class_name().chars().enumerate() {
            if c.is_ascii_uppercase() && i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_attributes_snake_case() {
        let mut seen = std::collections::HashSet::new();
        for k in ScalarKind::ALL {
            assert!(seen.insert(k.class_name()), "{k:?}");
            assert!(seen.insert(k.name()) || k.name() == k.class_name(), "{k:?}");
            let attr = k.attr_name();
            assert!(attr.chars().all(|c| !c.is_ascii_uppercase()), "{attr}");
        }
        assert_eq!(
            ScalarKind::RoundHalfToEven.attr_name(),
            "round_half_to_even"
        );
        assert_eq!(ScalarKind::Log1mexp.attr_name(), "log1mexp");
        assert_eq!(ScalarKind::And.attr_name(), "and_");
    }

    #[test]
    fn element_functions_have_the_arity_of_their_kind() {
        for k in ScalarKind::ALL {
            match k.float_fn::<f64>() {
                Some(ScalarFn::Unary(_)) => assert_eq!(k.nin(), Some(1), "{k:?}"),
                Some(ScalarFn::Binary(_)) => assert_ne!(k.nin(), Some(1), "{k:?}"),
                None => {}
            }
            assert_eq!(
                k.float_fn::<f64>().is_some(),
                k.visit_float::<f64, _>(Arity).is_some()
            );
        }
    }

    #[test]
    fn xlogy_is_zero_where_x_is_zero_as_scipy() {
        let f = |k: ScalarKind, x: f64, y: f64| match k.float_fn::<f64>() {
            Some(ScalarFn::Binary(f)) => f(x, y),
            _ => panic!("{k:?} has no binary element function"),
        };
        assert_eq!(f(ScalarKind::XLogY, 0.0, 0.0), 0.0);
        assert_eq!(f(ScalarKind::XLogY, 0.0, -1.0), 0.0);
        assert_eq!(f(ScalarKind::XLogY, 2.0, 0.0), f64::NEG_INFINITY);
        assert!(f(ScalarKind::XLogY, 0.0, f64::NAN).is_nan());
        assert!(f(ScalarKind::XLogY, 1.0, -1.0).is_nan());
        assert_eq!(f(ScalarKind::XLogY, 0.5, 2.0), 0.5 * 2f64.ln());
        assert_eq!(f(ScalarKind::XLog1pY, 0.0, -1.0), 0.0);
        assert_eq!(f(ScalarKind::XLog1pY, 0.5, -1.0), f64::NEG_INFINITY);
        assert_eq!(f(ScalarKind::XLog1pY, 2.0, 1e-20), 2e-20);
    }

    struct Arity;
    impl ElemVisitor<f64> for Arity {
        type Out = usize;
        fn unary(self, _: impl Fn(f64) -> f64 + Sync + Copy) -> usize {
            1
        }
        fn binary(self, _: impl Fn(f64, f64) -> f64 + Sync + Copy) -> usize {
            2
        }
    }
}
