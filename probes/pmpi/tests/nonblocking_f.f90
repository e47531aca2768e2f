! nonblocking_f.f90 - Fortran MPI program for the segment profiler's test of
! nonblocking boundaries: NITER iterations of compute, then MPI_IALLTOALL
! completed by MPI_WAIT, MPI_IALLREDUCE completed by a polite MPI_TEST
! loop, MPI_IBARRIER plus MPI_IALLGATHER completed by MPI_TESTALL, an
! MPI_IALLREDUCE completed by MPI_WAITANY and an MPI_IBARRIER by an
! MPI_TESTSOME loop, so a profiled run has 6*NITER segments (+1 for the
! first MPI_BARRIER); and an MPI_IBCAST and an MPI_IREDUCE of 64 integers,
! each completed by MPI_WAIT, which are rooted and cut no segment.
program nonblocking_f
  use mpi
  implicit none
  integer, parameter :: niter = 20, n = 64
  integer :: ierr, rank, nprocs, it, i, req, reqs(2), idx, outn, idxs(2), bsum(n)
  integer :: status(MPI_STATUS_SIZE)
  integer, allocatable :: sbuf(:), rbuf(:), gbuf(:)
  logical :: done
  double precision :: x, total
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  allocate(sbuf(n * nprocs), rbuf(n * nprocs), gbuf(nprocs))
  sbuf = rank
  x = 1.0d0
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  do it = 1, niter
     do i = 1, 200000
        x = x * 0.999999d0 + 1.0d-6
     end do
     call MPI_IALLTOALL(sbuf, n, MPI_INTEGER, rbuf, n, MPI_INTEGER, MPI_COMM_WORLD, req, ierr)
     call MPI_WAIT(req, status, ierr)
     call MPI_IBCAST(sbuf, n, MPI_INTEGER, 0, MPI_COMM_WORLD, req, ierr)
     call MPI_WAIT(req, status, ierr)
     call MPI_IREDUCE(sbuf, bsum, n, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, req, ierr)
     call MPI_WAIT(req, status, ierr)
     call MPI_IALLREDUCE(x, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, req, ierr)
     done = .false.
     do while (.not. done)
        call MPI_TEST(req, done, status, ierr)
     end do
     call MPI_IBARRIER(MPI_COMM_WORLD, reqs(1), ierr)
     call MPI_IALLGATHER(rank, 1, MPI_INTEGER, gbuf, 1, MPI_INTEGER, MPI_COMM_WORLD, reqs(2), ierr)
     done = .false.
     do while (.not. done)
        call MPI_TESTALL(2, reqs, done, MPI_STATUSES_IGNORE, ierr)
     end do
     reqs(1) = MPI_REQUEST_NULL
     call MPI_IALLREDUCE(x, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, reqs(2), ierr)
     call MPI_WAITANY(2, reqs, idx, status, ierr)
     call MPI_IBARRIER(MPI_COMM_WORLD, reqs(1), ierr)
     outn = 0
     do while (outn == 0)
        call MPI_TESTSOME(2, reqs, outn, idxs, MPI_STATUSES_IGNORE, ierr)
     end do
  end do
  if (rank == 0) print '(a,i0,a,f8.3,a,i0)', 'nonblocking_f: ranks=', nprocs, ' total=', total, ' gathered=', sum(gbuf)
  deallocate(sbuf, rbuf, gbuf)
  call MPI_FINALIZE(ierr)
end program nonblocking_f
