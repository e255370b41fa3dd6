//! Reading a runner's log to tell whether a job is running on it.
//!
//! actions/runner prints `Running job: NAME` when it takes a job and
//! `Job NAME completed with result: RESULT` when it finishes, each after a timestamp. A job
//! started without a later completion line is running.

/// The job that is running according to these log lines (oldest first), if any.
pub fn running_job<S: AsRef<str>>(lines: &[S]) -> Option<String> {
    let mut running: Option<String> = None;
    for line in lines {
        let line = line.as_ref();
        if let Some(job) = after(line, "Running job: ") {
            running = Some(job.trim().to_owned());
        } else if let Some((job, _)) =
            after(line, "Job ").and_then(|rest| rest.split_once(" completed with result"))
            && running.as_deref() == Some(job.trim())
        {
            running = None;
        }
    }
    running
}

/// The text after `marker` when the line's message (after the timestamp) starts with it.
fn after<'a>(line: &'a str, marker: &str) -> Option<&'a str> {
    let message = line.split_once("Z: ").map_or(line, |(_, m)| m);
    message.strip_prefix(marker)
}

#[cfg(test)]
mod tests {
    use super::running_job;

    const TS: &str = "2026-11-29 21:30:00Z: ";

    fn log(lines: &[&str]) -> Vec<String> {
        lines.iter().map(|l| format!("{TS}{l}")).collect()
    }

    #[test]
    fn idle_runner_has_no_job() {
        assert_eq!(
            running_job(&log(&["√ Connected to GitHub", "Listening for Jobs"])),
            None
        );
        assert_eq!(running_job::<String>(&[]), None);
    }

    #[test]
    fn a_started_job_without_completion_is_running() {
        assert_eq!(
            running_job(&log(&["Listening for Jobs", "Running job: build (linux)"])),
            Some("build (linux)".to_owned())
        );
    }

    #[test]
    fn a_completed_job_is_not_running() {
        let l = log(&[
            "Running job: build",
            "Job build completed with result: Succeeded",
        ]);
        assert_eq!(running_job(&l), None);
        let l = log(&[
            "Running job: test",
            "Job test completed with result: Failed",
        ]);
        assert_eq!(running_job(&l), None);
    }

    #[test]
    fn a_later_job_after_a_completed_one_is_running() {
        let l = log(&[
            "Running job: a",
            "Job a completed with result: Succeeded",
            "Running job: b",
        ]);
        assert_eq!(running_job(&l), Some("b".to_owned()));
    }

    #[test]
    fn completion_of_another_job_does_not_clear_the_running_one() {
        let l = log(&["Running job: b", "Job a completed with result: Succeeded"]);
        assert_eq!(running_job(&l), Some("b".to_owned()));
    }

    #[test]
    fn lines_without_timestamps_are_read_too() {
        assert_eq!(running_job(&["Running job: x"]), Some("x".to_owned()));
    }
}
