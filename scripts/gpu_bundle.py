#!/usr/bin/env python3
"""The GPU bundle's file work, for scripts/gpu-check.sh: what a bundle holds, and whether it stands alone.

  gpu_bundle.py make BUILD_DIR STAGING   copy the GPU-enabled programs of BUILD_DIR, Open MPI's runtime and
                                         every shared library they load into STAGING; RPATH relative to
                                         $ORIGIN; stripped; a MANIFEST with each file's SHA-256
  gpu_bundle.py libraries BUNDLE         the same on this machine (run-bundle's first step)
  gpu_bundle.py check BUNDLE ROOT        in a root that holds only the bundle and glibc's, libstdc++'s and
                                         libgcc_s's files, every ELF file's libraries resolve inside the
                                         bundle or are the GPU machine's own (driver, NCCL); exit 1 naming
                                         each one that does not

The bundle is built here (Debian 12, glibc 2.36) and run on a newer system (the GPU machine: Ubuntu 24.04,
glibc 2.39), so glibc and the C++ runtime are taken from there (they are backward compatible) and
everything else travels. NCCL is taken from the GPU machine (its toolkit or the nvidia-nccl wheel), as are
the driver's libraries, which must match its kernel module.
"""

import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

# Sonames the GPU machine provides: glibc's own libraries, the C++ runtime, the driver's, and NCCL.
SYSTEM_SONAMES = re.compile(
    r"^(ld-linux-x86-64\.so\.2|linux-vdso\.so\.1|lib(c|m|mvec|dl|rt|pthread|util|resolv|anl|nsl|BrokenLocale)\.so\.\d+"
    r"|libstdc\+\+\.so\.6|libgcc_s\.so\.1"
    r"|libcuda\.so\.1|libnvidia-ml\.so\.1|libnvidia-[a-z-]+\.so\.\d+|libnccl\.so\.2)$")
# Of those, the ones this machine may lack (no driver here) and the check root never holds.
GPU_MACHINE_SONAMES = re.compile(r"^(libcuda\.so\.1|libnvidia-ml\.so\.1|libnvidia-[a-z-]+\.so\.\d+|libnccl\.so\.2)$")

# The programs the GPU check runs, by their path in the build tree and in the bundle.
PROGRAMS = {
    "fabricbench": "bin/fabricbench",
    "perf/gpu_reference": "bin/gpu_reference",
    "tests/gpu/fabricbench_gpu_tests": "tests/fabricbench_gpu_tests",
    "tests/gpu/fabricbench_nccl_completion_tests": "tests/fabricbench_nccl_completion_tests",
    "tests/integration/fabricbench_mpi_tests": "tests/fabricbench_mpi_tests",
}
# Open MPI's runtime as Debian installs it: mpirun, its components and help texts, PMIx with its
# components. The bundle keeps Debian's paths under openmpi/ so that OPAL_PREFIX relocates them.
OPENMPI_PACKAGES = ["openmpi-bin", "openmpi-common", "libopenmpi3", "libpmix2"]
OPENMPI_SKIPPED = re.compile(r"/share/(doc|man|lintian)/|java|fortran|mpifh|usempi|oshmem|/include/|\.a$|/pkgconfig/")
LIBRARY_DIR = "lib"
OPENMPI_LIBDIR = "openmpi/usr/lib/x86_64-linux-gnu"


def is_elf(path: Path) -> bool:
    if path.is_symlink() or not path.is_file():
        return False
    with path.open("rb") as handle:
        return handle.read(4) == b"\x7fELF"


def loaded_libraries(path: Path, env: dict[str, str], root: Path | None = None) -> list[tuple[str, str | None]]:
    """(soname, resolved path or None) for every library `path` loads, as the loader resolves them, in
    `root` when given (as root: chroot).

    The loader traces (as ldd does) instead of `--list`, which stops at the first library it cannot find.
    """
    listed = subprocess.run(["/lib64/ld-linux-x86-64.so.2", str(path)], capture_output=True, text=True,
                            env={**env, "LD_TRACE_LOADED_OBJECTS": "1"}, check=False,
                            preexec_fn=(lambda: os.chroot(root)) if root else None)
    if listed.returncode != 0:
        raise RuntimeError(f"{path}: the loader could not list its libraries: {listed.stderr.strip()}")
    libraries = []
    for line in listed.stdout.splitlines():
        found = re.match(r"\s*(\S+) => (not found|(\S+) \(0x[0-9a-f]+\))", line)
        if found:
            libraries.append((found.group(1), found.group(3)))
    return libraries


def openmpi_files() -> list[Path]:
    listed = subprocess.run(["dpkg", "-L", *OPENMPI_PACKAGES], capture_output=True, text=True, check=True)
    return sorted({Path(line) for line in listed.stdout.splitlines() if line.startswith("/")
                   and not OPENMPI_SKIPPED.search(line) and (Path(line).is_file() or Path(line).is_symlink())})


def relative_rpath(elf: Path, staging: Path) -> str:
    """The bundle's library folders as seen from `elf`'s folder, for DT_RPATH."""
    folders = [LIBRARY_DIR, OPENMPI_LIBDIR, OPENMPI_LIBDIR + "/pmix2/lib"]
    return ":".join("$ORIGIN/" + os.path.relpath(staging / folder, elf.parent) for folder in folders)


def make(build_dir: Path, staging: Path) -> int:
    if staging.exists():
        shutil.rmtree(staging)
    elves = []
    for source, target in PROGRAMS.items():
        if not (build_dir / source).is_file():
            print(f"gpu_bundle: {build_dir / source}: missing; build the GPU targets first", file=sys.stderr)
            return 2
        (staging / target).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(build_dir / source, staging / target)
        elves.append(staging / target)
    bundled_names = {elf.name for elf in elves}
    for source in openmpi_files():
        target = staging / "openmpi" / source.relative_to("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target, follow_symlinks=False)  # a soname's link stays a link
        bundled_names.add(target.name)
        if is_elf(target):
            elves.append(target)
    # Debian's Open MPI reads its default parameters from /etc/openmpi; the bundle's copy sits where
    # OPAL_PREFIX's sysconfdir is (PREFIX/etc).
    for conf in Path("/etc/openmpi").glob("*.conf"):
        (staging / "openmpi/usr/etc").mkdir(parents=True, exist_ok=True)
        shutil.copy2(conf, staging / "openmpi/usr/etc" / conf.name)

    # Every library any of them loads, transitively (ldd lists the closure), but the GPU machine's own.
    program_count = len(elves)
    missing = []
    queue = list(elves)
    while queue:
        elf = queue.pop()
        for soname, resolved in loaded_libraries(elf, dict(os.environ)):
            if SYSTEM_SONAMES.match(soname) or soname in bundled_names:
                continue
            if resolved is None:
                missing.append(f"{elf.relative_to(staging)}: {soname}")
                continue
            target = staging / LIBRARY_DIR / soname
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(os.path.realpath(resolved), target)
            bundled_names.add(soname)
            elves.append(target)
            queue.append(target)
    if missing:
        print("gpu_bundle: not found on this machine, so not bundled: " + "; ".join(missing), file=sys.stderr)
        return 1

    for elf in elves:
        elf.chmod(elf.stat().st_mode | 0o200)
        subprocess.run(["strip", "--strip-unneeded", str(elf)], check=True)
        # DT_RPATH, not RUNPATH: it also serves the libraries each one loads (libmpi's own libraries).
        subprocess.run(["patchelf", "--force-rpath", "--set-rpath", relative_rpath(elf, staging), str(elf)],
                       check=True)
    with (staging / "MANIFEST").open("w") as manifest:
        for path in sorted(p for p in staging.rglob("*") if p.is_file() and p.name != "MANIFEST"):
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            manifest.write(f"{digest}  {path.relative_to(staging)}\n")
    print(f"gpu_bundle: {len(elves)} ELF files ({len(elves) - program_count} libraries beside the programs and "
          f"Open MPI's runtime) in {staging}")
    return 0


def system_runtime_files() -> list[Path]:
    """glibc's, libstdc++'s and libgcc_s's files on this machine: what the check root may hold."""
    listed = subprocess.run(["dpkg", "-L", "libc6", "libstdc++6", "libgcc-s1"], capture_output=True, text=True,
                            check=True)
    return [Path(line) for line in listed.stdout.splitlines() if line.startswith(("/lib", "/usr/lib"))
            and not Path(line).is_dir() and (Path(line).is_file() or Path(line).is_symlink())
            and "/gconv/" not in line]


def check(bundle: Path, root: Path) -> int:
    """Lists every ELF file's libraries with the loader in a root of only the bundle and the system runtime."""
    if root.exists():
        shutil.rmtree(root)
    for source in system_runtime_files():
        # Placed at its real folder (Debian 12 merges /lib into /usr/lib); a link stays a link.
        target = root / Path(os.path.realpath(source.parent)).relative_to("/") / source.name
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists() or target.is_symlink():
            continue
        if source.is_symlink():
            target.symlink_to(os.readlink(source))
        else:
            shutil.copy2(source, target)
    for merged in ("lib", "lib64"):
        if (root / "usr" / merged).exists() and not (root / merged).exists():
            (root / merged).symlink_to("usr/" + merged)
    shutil.copytree(bundle, root / "bundle", symlinks=True)
    code = report_unresolved(root / "bundle", root)
    if code == 0:
        code = run_mpi_job_in(root)
    shutil.rmtree(root)
    return code


def run_mpi_job_in(root: Path) -> int:
    """The bundle's mpirun starts two fabricbench ranks (the MPI backend) in the root, with nothing of
    this machine's but glibc and, as the GPU machine's own, its NCCL library: Open MPI's relocation
    (components, help texts, PMIx) works without any system copy of it to fall back on."""
    nccl = Path("/usr/local/cuda/lib64/libnccl.so.2")
    (root / "gpu-machine").mkdir()
    shutil.copy2(os.path.realpath(nccl), root / "gpu-machine" / nccl.name)
    for folder in ("proc", "dev", "sys", "tmp", "etc"):
        (root / folder).mkdir(exist_ok=True)
    (root / "etc/passwd").write_text("root:x:0:0:root:/tmp:/bin/sh\n")
    (root / "etc/hosts").write_text("127.0.0.1 localhost\n")
    prefix = "/bundle/openmpi/usr"
    libdir = f"{prefix}/lib/x86_64-linux-gnu"
    env = {"PATH": f"{prefix}/bin", "HOME": "/tmp", "TMPDIR": "/tmp", "LD_LIBRARY_PATH": "/gpu-machine",
           "OPAL_PREFIX": prefix, "PMIX_PREFIX": f"{libdir}/pmix2",
           "OMPI_MCA_mca_base_component_path": f"{libdir}/openmpi/lib/openmpi3",
           "PMIX_MCA_mca_base_component_path": f"{libdir}/pmix2/lib/pmix", "OMPI_MCA_plm": "isolated",
           "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
    mounts = (f"mount -t proc proc {root}/proc && mount --rbind /dev {root}/dev && "
              f"mount --rbind /sys {root}/sys && mount -t tmpfs tmpfs {root}/tmp && exec \"$@\"")
    job = subprocess.run(["unshare", "--mount", "--fork", "sh", "-c", mounts, "sh", "/usr/bin/env", "-i",
                          *(f"{k}={v}" for k, v in env.items()), shutil.which("chroot"), str(root),
                          f"{prefix}/bin/orterun", "--oversubscribe", "-np", "2", "/bundle/bin/fabricbench", "run",
                          "all_reduce", "--backend", "mpi", "-b", "8", "-e", "1K", "-n", "3", "-w", "1", "-D",
                          "/tmp/results"], capture_output=True, text=True, timeout=120, check=False)
    if job.returncode != 0:
        print(f"gpu_bundle: the bundle's mpirun with 2 ranks in the root exited {job.returncode}:\n"
              + (job.stdout + job.stderr)[-2000:], file=sys.stderr)
        return 1
    print("gpu_bundle: the bundle's mpirun ran 2 fabricbench ranks in the root (all_reduce, MPI backend)")
    return 0


def report_unresolved(bundle: Path, root: Path | None) -> int:
    """Names every library of the bundle's ELF files that resolves nowhere (but the GPU machine's own)
    or outside the bundle (but the system runtime's); in `root` when given, else on this machine."""
    problems = []
    # Paths as the loader sees them: inside the root, the bundle is at /bundle.
    seen_as = (lambda p: Path("/") / p.relative_to(root)) if root else (lambda p: p)
    bundle_prefix = f"{seen_as(bundle)}/"
    elves = [p for p in bundle.rglob("*") if is_elf(p)]
    for elf in elves:
        path = seen_as(elf)
        for soname, resolved in loaded_libraries(path, {} if root else dict(os.environ), root):
            if resolved is None and not GPU_MACHINE_SONAMES.match(soname):
                problems.append(f"{path}: {soname} resolves nowhere")
            elif resolved and not SYSTEM_SONAMES.match(soname) and not resolved.startswith(bundle_prefix):
                problems.append(f"{path}: {soname} resolves to {resolved}, outside the bundle")
    for problem in problems:
        print(f"gpu_bundle: {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"gpu_bundle: {len(elves)} ELF files; every library resolves inside the bundle or is the GPU machine's "
          "own (glibc, libstdc++, libgcc_s, the driver's, NCCL)")
    return 0


def main(argv: list[str]) -> int:
    if len(argv) == 4 and argv[1] == "make":
        return make(Path(argv[2]).resolve(), Path(argv[3]).resolve())
    if len(argv) == 4 and argv[1] == "check":
        return check(Path(argv[2]).resolve(), Path(argv[3]).resolve())
    if len(argv) == 3 and argv[1] == "libraries":
        return report_unresolved(Path(argv[2]).resolve(), None)
    print(__doc__.strip().split("\n\n")[0], file=sys.stderr)
    print("usage: gpu_bundle.py make BUILD_DIR STAGING | check BUNDLE SCRATCH_ROOT | libraries BUNDLE",
          file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
