//! How much memory this process may use: the machine's, or its cgroup's
//! limit when lower. The store sizes its build's windows by it and the
//! trainer chooses the mmap store's writeback by it, so both read it here.

/// The memory this process may use: the machine's, or the lowest limit
/// of its cgroup and the cgroup's ancestors (cgroup v2), when lower.
pub fn usable_memory() -> Option<u64> {
    let machine = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| mem_total(&text))?;
    let cgroup = std::fs::read_to_string("/proc/self/cgroup")
        .ok()
        .and_then(|text| cgroup_limit(&text, &|path| std::fs::read_to_string(path).ok()));
    Some(cgroup.map_or(machine, |limit| limit.min(machine)))
}

/// The lowest memory limit of the cgroups named in `proc_self_cgroup` and
/// their ancestors, read through `read`: cgroup v2's `memory.max` (under
/// `/sys/fs/cgroup`, or its `unified` mount on a hybrid system) and v1's
/// `memory.limit_in_bytes`. `None` when none sets a limit.
fn cgroup_limit(proc_self_cgroup: &str, read: &dyn Fn(&str) -> Option<String>) -> Option<u64> {
    let mut files = Vec::new();
    for line in proc_self_cgroup.lines() {
        let mut fields = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) =
            (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        let mut dir = path.trim().trim_end_matches('/');
        loop {
            if controllers.is_empty() {
                files.push(format!("/sys/fs/cgroup{dir}/memory.max"));
                files.push(format!("/sys/fs/cgroup/unified{dir}/memory.max"));
            } else if controllers.split(',').any(|name| name == "memory") {
                files.push(format!("/sys/fs/cgroup/memory{dir}/memory.limit_in_bytes"));
            } else {
                break;
            }
            match dir.rfind('/') {
                Some(parent) => dir = &dir[..parent],
                None => break,
            }
        }
    }
    files
        .iter()
        .filter_map(|file| read(file)?.trim().parse::<u64>().ok())
        .min()
}

/// `MemTotal` of a `/proc/meminfo` text, in bytes.
fn mem_total(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|line| line.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_is_read_from_meminfo() {
        let text = "MemTotal:       24570000 kB\nMemFree:         1000 kB\n";
        assert_eq!(mem_total(text), Some(24_570_000 * 1024));
        assert_eq!(mem_total("MemFree: 3 kB\n"), None);
        assert_eq!(mem_total("MemTotal: lots kB\n"), None);
    }

    #[test]
    fn the_lowest_cgroup_limit_on_the_way_up_counts() {
        let files = |path: &str| match path {
            "/sys/fs/cgroup/user.slice/job/memory.max" => Some("max\n".to_owned()),
            "/sys/fs/cgroup/user.slice/memory.max" => Some("1073741824\n".to_owned()),
            "/sys/fs/cgroup/memory.max" => Some("2147483648\n".to_owned()),
            _ => None,
        };
        assert_eq!(cgroup_limit("0::/user.slice/job\n", &files), Some(1 << 30));
        assert_eq!(cgroup_limit("0::/\n", &files), Some(2 << 30));
        assert_eq!(cgroup_limit("0::/elsewhere\n", &|_| None), None);
        // A v1 memory controller, as on a hybrid system, counts too.
        let v1 = |path: &str| match path {
            "/sys/fs/cgroup/memory/job/memory.limit_in_bytes" => Some("536870912".to_owned()),
            "/sys/fs/cgroup/memory/memory.limit_in_bytes" => Some("9223372036854771712".to_owned()),
            _ => None,
        };
        assert_eq!(
            cgroup_limit("4:memory:/job\n2:cpuacct:/\n0::/\n", &v1),
            Some(1 << 29)
        );
        assert_eq!(cgroup_limit("4:cpu:/job\n", &v1), None);
    }
}
