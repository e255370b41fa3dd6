//! Ages as kubectl prints them (`HumanDuration` in apimachinery): `45s`, `3m20s`, `5h`, `2d3h`.

use std::time::Duration;

/// kubectl's human duration: more precision for short ages, less for long ones.
pub fn human(d: Duration) -> String {
    let s = d.as_secs();
    if s < 120 {
        return format!("{s}s");
    }
    let m = s / 60;
    if m < 10 {
        return if s.is_multiple_of(60) {
            format!("{m}m")
        } else {
            format!("{m}m{}s", s % 60)
        };
    }
    if m < 180 {
        return format!("{m}m");
    }
    let h = m / 60;
    if h < 8 {
        return if m.is_multiple_of(60) {
            format!("{h}h")
        } else {
            format!("{h}h{}m", m % 60)
        };
    }
    if h < 48 {
        return format!("{h}h");
    }
    let days = h / 24;
    if h < 24 * 8 {
        return if h.is_multiple_of(24) {
            format!("{days}d")
        } else {
            format!("{days}d{}h", h % 24)
        };
    }
    if h < 24 * 365 * 2 {
        return format!("{days}d");
    }
    let y = days / 365;
    if h < 24 * 365 * 8 {
        return if days.is_multiple_of(365) {
            format!("{y}y")
        } else {
            format!("{y}y{}d", days % 365)
        };
    }
    format!("{y}y")
}

/// The age of something created at `created`, seen at `now`; `<invalid>` (as kubectl) when it lies in the future.
pub fn since(created: jiff::Timestamp, now: jiff::Timestamp) -> String {
    let secs = now.as_second() - created.as_second();
    if secs < -1 {
        return "<invalid>".to_owned();
    }
    human(Duration::from_secs(secs.max(0).unsigned_abs()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_kubectl() {
        let cases = [
            (0, "0s"),
            (45, "45s"),
            (119, "119s"),
            (120, "2m"),
            (200, "3m20s"),
            (600, "10m"),
            (179 * 60, "179m"),
            (3 * 3600, "3h"),
            (3 * 3600 + 60 * 25, "3h25m"),
            (8 * 3600, "8h"),
            (47 * 3600, "47h"),
            (48 * 3600, "2d"),
            (50 * 3600, "2d2h"),
            (8 * 86400, "8d"),
            (730 * 86400, "2y"),
            (731 * 86400, "2y1d"),
            (9 * 365 * 86400, "9y"),
        ];
        for (s, want) in cases {
            assert_eq!(human(Duration::from_secs(s)), want, "{s}s");
        }
    }

    #[test]
    fn since_handles_clock_skew() {
        let t = jiff::Timestamp::from_second(1_000).unwrap();
        assert_eq!(
            since(t, jiff::Timestamp::from_second(1_045).unwrap()),
            "45s"
        );
        assert_eq!(since(t, jiff::Timestamp::from_second(999).unwrap()), "0s");
        assert_eq!(
            since(t, jiff::Timestamp::from_second(900).unwrap()),
            "<invalid>"
        );
    }
}
