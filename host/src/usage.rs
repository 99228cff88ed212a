//! Usage figures (the `usage` object of every run): what one run, or one month, cost. Sizes use binary
//! units (1 GB = 2^30 bytes), as the plan limits do. Pure values: charging and the quota are in
//! `metering`.

use serde::{Deserialize, Serialize};

pub const GB: f64 = 1_073_741_824.0;

/// The figures shown to tenants: time to the millisecond, sizes in GB to nine digits.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, salvo::oapi::ToSchema)]
pub struct Usage {
    pub time_sec: f64,
    pub input_size_gb: f64,
    pub output_size_gb: f64,
    pub gb_sec: f64,
}

/// What is added to an account's month: exact byte counts and the run's figures.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Charge {
    #[serde(default)]
    pub input_bytes: u64,
    #[serde(default)]
    pub output_bytes: u64,
    #[serde(default)]
    pub time_sec: f64,
    #[serde(default)]
    pub gb_sec: f64,
}

impl Usage {
    pub fn new(time_sec: f64, input_bytes: u64, output_bytes: u64) -> Usage {
        let gb_sec = (input_bytes as f64 / GB + output_bytes as f64 / GB) * time_sec;
        Usage::rounded(time_sec, input_bytes, output_bytes, gb_sec)
    }

    /// A month's totals, rounded as each run's figures are (sums of floats drift otherwise).
    pub fn of_month(t: &Charge) -> Usage {
        Usage::rounded(t.time_sec, t.input_bytes, t.output_bytes, t.gb_sec)
    }

    fn rounded(time_sec: f64, input_bytes: u64, output_bytes: u64, gb_sec: f64) -> Usage {
        Usage {
            time_sec: round(time_sec, 3),
            input_size_gb: round(input_bytes as f64 / GB, 9),
            output_size_gb: round(output_bytes as f64 / GB, 9),
            gb_sec: round(gb_sec, 9),
        }
    }
}

impl Charge {
    /// One run's charge: its exact bytes and its (rounded) figures.
    pub fn of_run(input_bytes: u64, output_bytes: u64, usage: &Usage) -> Charge {
        Charge {
            input_bytes,
            output_bytes,
            time_sec: usage.time_sec,
            gb_sec: usage.gb_sec,
        }
    }
}

/// What is left of the plan's monthly quota, in GB to six digits.
pub fn remaining_gb(quota_bytes: u64, t: &Charge) -> f64 {
    round(quota_bytes.saturating_sub(t.input_bytes) as f64 / GB, 6)
}

fn round(x: f64, digits: i32) -> f64 {
    let f = 10f64.powi(digits);
    (x * f).round() / f
}

/// What a task is expected to cost, before it runs.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, salvo::oapi::ToSchema)]
pub struct Estimate {
    pub time_sec: f64,
    pub input_size_gb: f64,
    pub output_size_gb: f64,
    pub gb_sec: f64,
    pub confidence: Confidence,
    /// In words: what the figures rest on.
    pub basis: String,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, salvo::oapi::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    /// Defaults for the kind of work; nothing like it has run here yet.
    Low,
    /// One or two runs of the same kind measured here.
    Medium,
    /// Three or more.
    High,
}

impl Estimate {
    pub fn new(
        time_sec: f64,
        input_bytes: u64,
        output_bytes: u64,
        confidence: Confidence,
        basis: String,
    ) -> Estimate {
        let u = Usage::new(time_sec, input_bytes, output_bytes);
        Estimate {
            time_sec: round(time_sec, 1),
            input_size_gb: u.input_size_gb,
            output_size_gb: u.output_size_gb,
            gb_sec: u.gb_sec,
            confidence,
            basis,
        }
    }
}
