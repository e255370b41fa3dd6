//! The CPU time the sandbox's `--report` states: this process's, and the waited-for command's.
//!
//! Read from `/proc/self/stat` (`utime`, `stime`, `cutime`, `cstime`) rather than
//! `getrusage`, which needs `unsafe` (the crate forbids it); the kernel counts these in
//! `USER_HZ` ticks, which Linux fixes at 100 a second for user space on every architecture.

use arcctl_sandbox::report::Cpu;

/// `USER_HZ`: the unit of `/proc/*/stat` times.
const TICKS_PER_SECOND: u64 = 100;

/// This process's CPU time and its waited-for children's (the command), or `None` off Linux
/// or when `/proc` is unreadable.
pub(crate) fn measure() -> Option<Cpu> {
    parse(&std::fs::read_to_string("/proc/self/stat").ok()?)
}

/// Parses a `/proc/PID/stat` line: fields 14 to 17 (1-based), counted after the `comm`
/// field, which is parenthesised and may hold spaces.
fn parse(stat: &str) -> Option<Cpu> {
    let rest = &stat[stat.rfind(')')? + 1..];
    // `rest` starts at field 3 (state): field N is at index N - 3.
    let fields: Vec<u64> = rest
        .split_whitespace()
        .skip(11)
        .take(4)
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    let [utime, stime, cutime, cstime] = fields[..] else {
        return None;
    };
    let ms = |ticks: u64| ticks * 1000 / TICKS_PER_SECOND;
    Some(Cpu {
        sandbox_ms: ms(utime + stime),
        command_ms: ms(cutime + cstime),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_own_and_children_times_after_the_command_name() {
        let line = "4242 (arc ctl) S 1 4242 4242 0 -1 4194560 500 0 0 0 123 45 678 90 20 0 9 0";
        assert_eq!(
            parse(line),
            Some(Cpu {
                sandbox_ms: 1680,
                command_ms: 7680
            })
        );
        assert_eq!(parse("4242 (x) S 1 2"), None);
    }

    #[test]
    fn this_process_has_a_reading() {
        assert!(measure().is_some());
    }
}
