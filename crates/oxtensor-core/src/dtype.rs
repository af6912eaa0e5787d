//! Element types and NumPy's promotion rules, with PyTensor's additions
//! (constant autocasting, `upgrade_to_float`, int/int true division to floatX).
//! Mirrors `pytensor/scalar/basic.py`'s dtype helpers.

use crate::error::{Error, Result};
use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};

/// The element type of a tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[allow(missing_docs)]
pub enum DType {
    Bool,
    Int8,
    Int16,
    Int32,
    Int64,
    UInt8,
    UInt16,
    UInt32,
    UInt64,
    Float16,
    Float32,
    Float64,
    Complex64,
    Complex128,
}

/// The kind of a dtype, in NumPy's promotion order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[allow(missing_docs)]
pub enum Kind {
    Bool,
    UInt,
    Int,
    Float,
    Complex,
}

/// Whether `floatX` is float32 (PyTensor's `config.floatX`). A process
/// setting, as PyTensor's config is: the host sets it from its config, and
/// graphs built afterwards read it.
static FLOATX_IS_FLOAT32: AtomicBool = AtomicBool::new(false);

/// The float type used where PyTensor uses `config.floatX` (float64 unless
/// [`set_floatx`] chose float32).
pub fn floatx() -> DType {
    if FLOATX_IS_FLOAT32.load(Ordering::Relaxed) {
        DType::Float32
    } else {
        DType::Float64
    }
}

/// Sets `floatX`: float32 or float64, as PyTensor allows.
pub fn set_floatx(dtype: DType) -> Result<()> {
    match dtype {
        DType::Float32 | DType::Float64 => {
            FLOATX_IS_FLOAT32.store(dtype == DType::Float32, Ordering::Relaxed);
            Ok(())
        }
        other => Err(Error::Value(format!(
            "floatX must be float32 or float64, got {other}"
        ))),
    }
}

impl DType {
    /// Every dtype, in declaration order.
    pub const ALL: [DType; 14] = [
        DType::Bool,
        DType::Int8,
        DType::Int16,
        DType::Int32,
        DType::Int64,
        DType::UInt8,
        DType::UInt16,
        DType::UInt32,
        DType::UInt64,
        DType::Float16,
        DType::Float32,
        DType::Float64,
        DType::Complex64,
        DType::Complex128,
    ];

    /// The NumPy name, e.g. `"float64"`.
    pub fn name(self) -> &'static str {
        use DType::*;
        match self {
            Bool => "bool",
            Int8 => "int8",
            Int16 => "int16",
            Int32 => "int32",
            Int64 => "int64",
            UInt8 => "uint8",
            UInt16 => "uint16",
            UInt32 => "uint32",
            UInt64 => "uint64",
            Float16 => "float16",
            Float32 => "float32",
            Float64 => "float64",
            Complex64 => "complex64",
            Complex128 => "complex128",
        }
    }

    /// Size of one element in bytes.
    pub fn itemsize(self) -> usize {
        use DType::*;
        match self {
            Bool | Int8 | UInt8 => 1,
            Int16 | UInt16 | Float16 => 2,
            Int32 | UInt32 | Float32 => 4,
            Int64 | UInt64 | Float64 | Complex64 => 8,
            Complex128 => 16,
        }
    }

    /// The dtype's kind.
    pub fn kind(self) -> Kind {
        use DType::*;
        match self {
            Bool => Kind::Bool,
            Int8 | Int16 | Int32 | Int64 => Kind::Int,
            UInt8 | UInt16 | UInt32 | UInt64 => Kind::UInt,
            Float16 | Float32 | Float64 => Kind::Float,
            Complex64 | Complex128 => Kind::Complex,
        }
    }

    /// Bool, signed or unsigned integer (PyTensor's `discrete_dtypes`).
    pub fn is_discrete(self) -> bool {
        matches!(self.kind(), Kind::Bool | Kind::Int | Kind::UInt)
    }

    /// Signed or unsigned integer (not bool).
    pub fn is_integer(self) -> bool {
        matches!(self.kind(), Kind::Int | Kind::UInt)
    }

    /// A real floating-point type.
    pub fn is_float(self) -> bool {
        self.kind() == Kind::Float
    }

    /// A complex type.
    pub fn is_complex(self) -> bool {
        self.kind() == Kind::Complex
    }

    /// Float or complex: the dtypes gradients may have.
    pub fn is_continuous(self) -> bool {
        self.is_float() || self.is_complex()
    }

    /// The signed integer of the given byte size.
    fn int_of_size(size: usize) -> Option<DType> {
        match size {
            1 => Some(DType::Int8),
            2 => Some(DType::Int16),
            4 => Some(DType::Int32),
            8 => Some(DType::Int64),
            _ => None,
        }
    }

    /// The smallest float that holds every value of this dtype exactly, as
    /// NumPy's promotion decides (`int8 -> float16`, `int32 -> float64`).
    fn min_float(self) -> DType {
        use DType::*;
        match self {
            Bool | Int8 | UInt8 | Float16 => Float16,
            Int16 | UInt16 | Float32 => Float32,
            Complex64 => Float32,
            _ => Float64,
        }
    }

    /// The real counterpart of a complex dtype; other dtypes are returned as is.
    pub fn real(self) -> DType {
        match self {
            DType::Complex64 => DType::Float32,
            DType::Complex128 => DType::Float64,
            other => other,
        }
    }

    /// NumPy's promotion of two dtypes (`np.promote_types`).
    pub fn promote(self, other: DType) -> DType {
        use Kind::*;
        let (a, b) = if self.kind() <= other.kind() {
            (self, other)
        } else {
            (other, self)
        };
        match (a.kind(), b.kind()) {
            (Bool, _) => b,
            (x, y) if x == y => {
                if a.itemsize() >= b.itemsize() {
                    a
                } else {
                    b
                }
            }
            (UInt, Int) => {
                if a.itemsize() < b.itemsize() {
                    b
                } else {
                    DType::int_of_size(a.itemsize() * 2).unwrap_or(DType::Float64)
                }
            }
            (UInt | Int, Float) => max_float(a.min_float(), b),
            (UInt | Int | Float, Complex) => {
                let float = max_float(a.min_float(), b.real());
                if float == DType::Float64 {
                    DType::Complex128
                } else {
                    DType::Complex64
                }
            }
            _ => unreachable!("kinds are ordered above"),
        }
    }

    /// PyTensor's `upgrade_to_float`: small integers go to float32, large
    /// ones to float64; floats and complex are kept.
    pub fn upgrade_to_float(self) -> DType {
        use DType::*;
        match self {
            Bool | Int8 | UInt8 | Int16 | UInt16 => Float32,
            Int32 | UInt32 | Int64 | UInt64 => Float64,
            other => other,
        }
    }

    /// Whether a value of `self` converts to `to` with no loss, as
    /// `TensorType.filter` requires (`upcast(to, self) == to`).
    pub fn can_cast_safely(self, to: DType) -> bool {
        to.promote(self) == to
    }
}

fn max_float(a: DType, b: DType) -> DType {
    if a.itemsize() >= b.itemsize() {
        a
    } else {
        b
    }
}

/// NumPy's promotion over all of `dtypes`.
pub fn promote_all(dtypes: &[DType]) -> Result<DType> {
    let (first, rest) = dtypes
        .split_first()
        .ok_or_else(|| Error::Value("upcast needs at least one dtype".into()))?;
    Ok(rest.iter().fold(*first, |acc, &d| acc.promote(d)))
}

/// PyTensor's `upcast(*dtypes)`: NumPy promotion over all of them, except
/// that under the "numpy+floatX" cast policy with floatX float32 a float64
/// result that no dtype asked for (`float32 + int32`) stays float32, as
/// PyTensor keeps data in floatX there.
pub fn upcast(dtypes: &[DType]) -> Result<DType> {
    let up = promote_all(dtypes)?;
    let keep_float32 = numpy_casts() && floatx() == DType::Float32;
    Ok(
        if up == DType::Float64 && keep_float32 && !dtypes.contains(&DType::Float64) {
            DType::Float32
        } else {
            up
        },
    )
}

/// Whether PyTensor's `cast_policy` is "numpy+floatX" (Python numbers take
/// NumPy's default dtypes) rather than "custom" (the autocaster's).
static NUMPY_CASTS: AtomicBool = AtomicBool::new(false);

/// Sets PyTensor's `cast_policy`: "custom" or "numpy+floatX".
pub fn set_cast_policy(name: &str) -> Result<()> {
    let numpy = match name {
        "custom" => false,
        "numpy+floatX" => true,
        other => {
            return Err(Error::Value(format!(
                "cast_policy must be 'custom' or 'numpy+floatX', got {other:?}"
            )))
        }
    };
    NUMPY_CASTS.store(numpy, Ordering::Relaxed);
    Ok(())
}

/// Whether Python numbers take NumPy's default dtypes (int64, floatX).
pub fn numpy_casts() -> bool {
    NUMPY_CASTS.load(Ordering::Relaxed)
}

/// The dtype PyTensor's autocaster gives a Python `int` constant: the first of
/// int8, int16, int32, int64 that holds it, else uint64; int64 whenever it
/// holds it under the "numpy+floatX" cast policy (NumPy's default).
pub fn autocast_int(value: i128) -> Result<DType> {
    if numpy_casts() && (i64::MIN as i128..=i64::MAX as i128).contains(&value) {
        return Ok(DType::Int64);
    }
    const CANDIDATES: [(DType, i128, i128); 4] = [
        (DType::Int8, i8::MIN as i128, i8::MAX as i128),
        (DType::Int16, i16::MIN as i128, i16::MAX as i128),
        (DType::Int32, i32::MIN as i128, i32::MAX as i128),
        (DType::Int64, i64::MIN as i128, i64::MAX as i128),
    ];
    if let Some((dtype, ..)) = CANDIDATES
        .iter()
        .find(|(_, lo, hi)| (*lo..=*hi).contains(&value))
    {
        return Ok(*dtype);
    }
    if (0..=u64::MAX as i128).contains(&value) {
        return Ok(DType::UInt64);
    }
    Err(Error::Value(format!(
        "Python int too large to convert to a tensor constant: {value}"
    )))
}

/// The dtype PyTensor's autocaster gives a Python `float` constant: float32
/// when that represents it exactly (or it is not finite), else float64;
/// float32 always when `floatX` is float32 (the autocaster tries dtypes up
/// to floatX only, keeping the last). The dtypes tried are a setting
/// (`scalar::autocast`).
pub fn autocast_float(value: f64) -> DType {
    if numpy_casts() {
        return floatx();
    }
    crate::scalar::autocast::autocast_float(value)
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for DType {
    type Err = Error;

    /// Parses every spelling `np.dtype(s)` accepts for a dtype oxtensor
    /// has ([`DType::from_numpy`]) and PyTensor's `floatX`.
    fn from_str(s: &str) -> Result<Self> {
        DType::from_numpy(s).ok_or_else(|| {
            let valid: Vec<&str> = DType::ALL.iter().map(|d| d.name()).collect();
            Error::Type(format!(
                "Unsupported dtype '{s}'; expected one of {} (or a NumPy spelling of one, \
                 such as 'f8', 'float', '<f8' or 'i4')",
                valid.join(", ")
            ))
        })
    }
}

/// NumPy's one-letter type codes for the dtypes oxtensor has (`c_long` is
/// the platform's `long`: 64 bits on Linux and macOS, 32 on Windows).
fn from_char(c: char) -> Option<DType> {
    use DType::*;
    let long = DType::int_of_size(std::mem::size_of::<std::ffi::c_long>())?;
    Some(match c {
        '?' => Bool,
        'b' => Int8,
        'B' => UInt8,
        'h' => Int16,
        'H' => UInt16,
        'i' => Int32,
        'I' => UInt32,
        'l' => long,
        'L' => long.unsigned()?,
        'q' | 'n' | 'p' => Int64,
        'Q' | 'N' | 'P' => UInt64,
        'e' => Float16,
        'f' => Float32,
        'd' => Float64,
        'F' => Complex64,
        'D' => Complex128,
        _ => return None,
    })
}

/// A sized code: a kind letter and a byte count (`f8`, `i4`, `u1`, `c16`, `b1`).
fn from_sized(code: &str) -> Option<DType> {
    let (kind, size) = code.split_at(code.char_indices().nth(1)?.0);
    let size: usize = size.parse().ok()?;
    DType::ALL.iter().copied().find(|d| {
        let letter = match d.kind() {
            Kind::Bool => 'b',
            Kind::Int => 'i',
            Kind::UInt => 'u',
            Kind::Float => 'f',
            Kind::Complex => 'c',
        };
        kind.starts_with(letter) && d.itemsize() == size
    })
}

/// NumPy's other names (Python's and C's) for the dtypes oxtensor has.
fn from_alias(name: &str) -> Option<DType> {
    use DType::*;
    let long = DType::int_of_size(std::mem::size_of::<std::ffi::c_long>())?;
    Some(match name {
        "bool_" => Bool,
        "byte" => Int8,
        "ubyte" => UInt8,
        "short" => Int16,
        "ushort" => UInt16,
        "intc" => Int32,
        "uintc" => UInt32,
        "long" => long,
        "ulong" => long.unsigned()?,
        "int" | "int_" | "intp" | "longlong" => Int64,
        "uint" | "uintp" | "ulonglong" => UInt64,
        "half" => Float16,
        "single" => Float32,
        "float" | "double" => Float64,
        "csingle" => Complex64,
        "complex" | "cdouble" => Complex128,
        "floatX" => floatx(),
        _ => return None,
    })
}

impl DType {
    /// The dtype NumPy's `np.dtype(s)` gives for the string `s`, when it
    /// is one oxtensor has: a name (`float64`), another NumPy or C name
    /// (`float`, `double`, `int`, `intc`, `bool_`), a one-letter code (`d`,
    /// `f`, `i`, `?`) or a sized code (`f8`, `i4`, `c16`, `b1`), codes with
    /// a byte-order prefix (`<f8`, `>f4`, `=i4`, `|b1`: the element type
    /// is the same whatever the order its bytes are stored in), and
    /// PyTensor's `floatX`. `None` for anything else, including NumPy's
    /// dtypes that oxtensor lacks (`float128`, `'g'`, `'f16'`, `object`).
    pub fn from_numpy(s: &str) -> Option<DType> {
        if let Some(d) = DType::ALL.iter().copied().find(|d| d.name() == s) {
            return Some(d);
        }
        if let Some(d) = from_alias(s) {
            return Some(d);
        }
        // NumPy takes byte-order prefixes on codes only (`<float64` fails).
        let code = s.strip_prefix(['<', '>', '=', '|']).unwrap_or(s);
        let mut chars = code.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => from_char(c),
            (Some(_), Some(_)) => from_sized(code),
            _ => None,
        }
    }

    /// The unsigned integer of the same size (for a signed integer).
    fn unsigned(self) -> Option<DType> {
        use DType::*;
        match self {
            Int8 => Some(UInt8),
            Int16 => Some(UInt16),
            Int32 => Some(UInt32),
            Int64 => Some(UInt64),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::DType::*;
    use super::*;

    #[test]
    fn promotion_matches_numpy() {
        // (a, b, np.promote_types(a, b)), checked against NumPy 2.
        let cases = [
            (Int32, Float32, Float64),
            (Int8, UInt8, Int16),
            (Bool, Bool, Bool),
            (Float32, Complex64, Complex64),
            (Float64, Complex64, Complex128),
            (Int16, Float16, Float32),
            (UInt8, Float16, Float16),
            (UInt64, Int64, Float64),
            (UInt32, Int32, Int64),
            (UInt8, Int32, Int32),
            (Int64, Complex64, Complex128),
            (Int8, Complex64, Complex64),
            (Bool, Float16, Float16),
            (UInt16, Int8, Int32),
        ];
        for (a, b, want) in cases {
            assert_eq!(a.promote(b), want, "{a} + {b}");
            assert_eq!(b.promote(a), want, "{b} + {a}");
        }
    }

    #[test]
    fn autocast() {
        assert_eq!(autocast_int(3).unwrap(), Int8);
        assert_eq!(autocast_int(300).unwrap(), Int16);
        assert_eq!(autocast_int(70000).unwrap(), Int32);
        assert_eq!(autocast_int(1 << 40).unwrap(), Int64);
        assert_eq!(autocast_int(u64::MAX as i128).unwrap(), UInt64);
        assert!(autocast_int(1 << 70).is_err());
        assert_eq!(autocast_float(3.0), Float32);
        assert_eq!(autocast_float(0.1), Float64);
        assert_eq!(autocast_float(1e300), Float64);
        assert_eq!(autocast_float(f64::INFINITY), Float32);
        assert!(set_floatx(Int32).is_err());
    }

    #[test]
    fn cast_policy_names() {
        // Only the refusal: switching the process-wide policy here would race
        // the other tests' autocasts.
        let err = set_cast_policy("numpy").unwrap_err().to_string();
        assert!(err.contains("'custom' or 'numpy+floatX'"), "{err}");
        assert!(!numpy_casts());
    }

    #[test]
    fn parse_and_names() {
        for d in DType::ALL {
            assert_eq!(d.name().parse::<DType>().unwrap(), d);
        }
        assert_eq!("floatX".parse::<DType>().unwrap(), Float64);
        assert!("float128".parse::<DType>().is_err());
    }

    #[test]
    fn numpys_spellings() {
        // (spelling, np.dtype(spelling).name), checked against NumPy 2 on Linux.
        let cases = [
            ("f8", Float64),
            ("float", Float64),
            ("<f8", Float64),
            (">f4", Float32),
            ("=i4", Int32),
            ("|b1", Bool),
            ("|u1", UInt8),
            ("<d", Float64),
            (">?", Bool),
            ("i4", Int32),
            ("i", Int32),
            ("l", Int64),
            ("q", Int64),
            ("p", Int64),
            ("P", UInt64),
            ("e", Float16),
            ("F", Complex64),
            ("c16", Complex128),
            ("int", Int64),
            ("uint", UInt64),
            ("complex", Complex128),
            ("double", Float64),
            ("single", Float32),
            ("half", Float16),
            ("intc", Int32),
            ("uintc", UInt32),
            ("longlong", Int64),
            ("ubyte", UInt8),
            ("bool_", Bool),
            ("b", Int8),
            ("B", UInt8),
        ];
        for (s, want) in cases {
            assert_eq!(s.parse::<DType>().unwrap(), want, "{s}");
        }
        // NumPy refuses these, or they are dtypes oxtensor lacks.
        for s in [
            "<float64", "f16", "g", "c32", "i16", "b2", "F8", " f8", "", "<", "object",
        ] {
            assert!(s.parse::<DType>().is_err(), "{s}");
        }
        let msg = "g".parse::<DType>().unwrap_err().to_string();
        assert!(
            msg.starts_with("Unsupported dtype 'g'; expected one of bool, int8"),
            "{msg}"
        );
    }

    #[test]
    fn upgrade() {
        assert_eq!(Int16.upgrade_to_float(), Float32);
        assert_eq!(Int32.upgrade_to_float(), Float64);
        assert_eq!(Float16.upgrade_to_float(), Float16);
        assert_eq!(upcast(&[Int8, Float32, Int32]).unwrap(), Float64);
    }
}
