//! The float autocaster: the dtype a Python `float` constant gets
//! (PyTensor's `autocast_float`, a `NumpyAutocaster` over float16, float32,
//! float64). Its dtypes are a process setting the host changes for a
//! block of code (`autocast_float_as("float32")`), as PyTensor's are.

use crate::dtype::{floatx, DType};
use crate::error::{Error, Result};
use std::sync::RwLock;

/// The dtypes tried, in order; `None` is the default.
static DTYPES: RwLock<Option<Vec<DType>>> = RwLock::new(None);

const DEFAULT: [DType; 3] = [DType::Float16, DType::Float32, DType::Float64];

/// The dtypes the autocaster tries, in order.
pub fn autocast_float_dtypes() -> Vec<DType> {
    match DTYPES.read() {
        Ok(d) => d.clone().unwrap_or_else(|| DEFAULT.to_vec()),
        Err(_) => DEFAULT.to_vec(),
    }
}

/// Sets the dtypes the autocaster tries: one or more float dtypes.
pub fn set_autocast_float_dtypes(dtypes: &[DType]) -> Result<()> {
    if dtypes.is_empty() {
        return Err(Error::Value(
            "autocast_float needs at least one dtype".into(),
        ));
    }
    if let Some(bad) = dtypes.iter().find(|d| !d.is_float()) {
        return Err(Error::Value(format!(
            "autocast_float only takes float dtypes, got {bad}"
        )));
    }
    let mut guard = DTYPES
        .write()
        .map_err(|_| Error::Value("autocast_float setting poisoned".into()))?;
    *guard = Some(dtypes.to_vec());
    Ok(())
}

/// The dtype of a Python `float` constant under the current setting.
pub fn autocast_float(value: f64) -> DType {
    autocast_float_among(value, &autocast_float_dtypes(), floatx())
}

/// floatX when it is float32 and allowed; else the first allowed dtype
/// (float16 never: floatX cannot be float16) holding the value exactly,
/// a non-finite value fitting any; else the last one tried.
fn autocast_float_among(value: f64, dtypes: &[DType], floatx: DType) -> DType {
    if floatx == DType::Float32 && dtypes.contains(&DType::Float32) {
        return DType::Float32;
    }
    let tried: Vec<DType> = dtypes
        .iter()
        .copied()
        .filter(|&d| d != DType::Float16)
        .collect();
    let exact = |d: DType| match d {
        DType::Float32 => !value.is_finite() || (value as f32) as f64 == value,
        _ => true,
    };
    tried
        .iter()
        .copied()
        .find(|&d| exact(d))
        .or_else(|| tried.last().copied())
        .unwrap_or(floatx)
}

#[cfg(test)]
mod tests {
    use super::*;
    use DType::*;

    #[test]
    fn default_picks_the_narrowest_exact_float() {
        assert_eq!(autocast_float_among(3.0, &DEFAULT, Float64), Float32);
        assert_eq!(autocast_float_among(1.1, &DEFAULT, Float64), Float64);
        assert_eq!(
            autocast_float_among(f64::INFINITY, &DEFAULT, Float64),
            Float32
        );
        assert_eq!(autocast_float_among(1.1, &DEFAULT, Float32), Float32);
    }

    #[test]
    fn restricted_dtypes_keep_the_last_tried() {
        assert_eq!(autocast_float_among(1.1, &[Float32], Float64), Float32);
        assert_eq!(autocast_float_among(1.0, &[Float64], Float64), Float64);
        assert_eq!(autocast_float_among(1.0, &[Float64], Float32), Float64);
        assert_eq!(
            autocast_float_among(1.1, &[Float32, Float64], Float64),
            Float64
        );
        assert_eq!(
            autocast_float_among(1.0, &[Float32, Float64], Float64),
            Float32
        );
    }

    #[test]
    fn setting_refuses_non_floats() {
        let err = set_autocast_float_dtypes(&[Int8]).unwrap_err();
        assert!(err.to_string().contains("only takes float dtypes"), "{err}");
        assert!(set_autocast_float_dtypes(&[]).is_err());
    }
}
