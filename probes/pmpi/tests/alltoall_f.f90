! alltoall_f.f90 - Fortran MPI program for the segment profiler's test:
! NITER iterations of compute, MPI_ALLTOALL, MPI_ALLREDUCE and MPI_BARRIER,
! so a profiled run has 3*NITER segments (+1 for the first barrier).
program alltoall_f
  use mpi
  implicit none
  integer, parameter :: niter = 20, n = 64
  integer :: ierr, rank, nprocs, it, i
  integer, allocatable :: sbuf(:), rbuf(:)
  double precision :: x, total
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  allocate(sbuf(n * nprocs), rbuf(n * nprocs))
  sbuf = rank
  x = 1.0d0
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  do it = 1, niter
     do i = 1, 200000
        x = x * 0.999999d0 + 1.0d-6
     end do
     call MPI_ALLTOALL(sbuf, n, MPI_INTEGER, rbuf, n, MPI_INTEGER, MPI_COMM_WORLD, ierr)
     call MPI_ALLREDUCE(x, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
     call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  end do
  if (rank == 0) print '(a,i0,a,f8.3)', 'alltoall_f: ranks=', nprocs, ' total=', total
  deallocate(sbuf, rbuf)
  call MPI_FINALIZE(ierr)
end program alltoall_f
