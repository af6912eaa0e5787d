//! `config.optimizer_verbose` for the core: a replacement log whose lines go
//! to Python's `sys.stdout` (as `print` would, so redirection and pytest's
//! capture see them), or none when the option is off.

use oxtensor_core::graph::ReplaceLog;
use pyo3::prelude::*;
use std::sync::Arc;

/// The log `oxtensor.config` asks for: `None` unless `optimizer_verbose`.
pub fn log_from_config(py: Python<'_>) -> PyResult<Option<ReplaceLog>> {
    let config = py.import("oxtensor.configdefaults")?.getattr("config")?;
    if !config.getattr("optimizer_verbose")?.extract::<bool>()? {
        return Ok(None);
    }
    Ok(Some(ReplaceLog::new(
        ignored(&config)?,
        Arc::new(print_line),
    )))
}

/// `optimizer_verbose_ignore`: the reasons not to print, comma-separated.
pub fn ignored(config: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    let text: String = config.getattr("optimizer_verbose_ignore")?.extract()?;
    Ok(text
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect())
}

/// Writes one line to `sys.stdout`. A failing write is dropped: a log line
/// must not turn a rewrite into an error.
fn print_line(line: &str) {
    Python::attach(|py| {
        let written = py
            .import("sys")
            .and_then(|sys| sys.getattr("stdout"))
            .and_then(|out| out.call_method1("write", (format!("{line}\n"),)));
        drop(written);
    });
}
