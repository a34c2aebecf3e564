! fcoll08.f90 - an MPI program as a Fortran 2008 user writes it (`use
! mpi_f08` only), run under bin/paprun by tests/interpose/fortran.sh:
! allreduce, reduce, bcast, barrier, allgather, reduce_scatter_block and
! iallreduce completed by mpi_wait and mpi_test, with and without
! MPI_IN_PLACE, with and without the optional ierror, each result checked
! against its value computed by hand (integers and halves: exact in any
! order).  Prints the number of calls (all ranks).  Exit status 1 on a
! wrong result.
program fcoll08
  use mpi_f08
  implicit none
  integer, parameter :: n = 500
  integer :: ierr, rank, np, i, root, nfail, allfail, it
  integer :: iv(n), ir(n), ig(n * 4)
  double precision :: dv(n), dr(n)
  type(MPI_Request) :: req, reqs(2)
  type(MPI_Status) :: st
  logical :: flag
  integer :: calls(9), total(9)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  if (np > 4) then
    write (0, '(a)') 'fcoll08: needs at most 4 ranks'
    call MPI_Abort(MPI_COMM_WORLD, 2)
  end if
  nfail = 0
  calls = 0
  do it = 1, 3
    do i = 1, n
      iv(i) = rank + i + it
    end do
    call MPI_Allreduce(iv, ir, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    calls(1) = calls(1) + 1
    do i = 1, n
      call check_i('MPI_Allreduce', ir(i), np * (np - 1) / 2 + np * (i + it), i)
    end do
    do i = 1, n
      dr(i) = rank * 0.5d0 + i
    end do
    call MPI_Allreduce(MPI_IN_PLACE, dr, n, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
    calls(1) = calls(1) + 1
    do i = 1, n
      call check_d('MPI_Allreduce in place', dr(i), 0.5d0 * np * (np - 1) / 2 + np * i, i)
    end do
    do root = 0, np - 1
      do i = 1, n
        dv(i) = rank + i * 0.5d0
      end do
      call MPI_Reduce(dv, dr, n, MPI_DOUBLE_PRECISION, MPI_MAX, root, MPI_COMM_WORLD)
      calls(2) = calls(2) + 1
      if (rank == root) then
        do i = 1, n
          call check_d('MPI_Reduce max', dr(i), np - 1 + i * 0.5d0, i)
        end do
      end if
      do i = 1, n
        iv(i) = -1
        if (rank == root) iv(i) = root + 7 * i
      end do
      call MPI_Bcast(iv, n, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
      calls(3) = calls(3) + 1
      do i = 1, n
        call check_i('MPI_Bcast', iv(i), root + 7 * i, i)
      end do
    end do
    call MPI_Barrier(MPI_COMM_WORLD)
    calls(4) = calls(4) + 1
    ig = -1
    do i = 1, n
      ig(rank * n + i) = rank * n + i
    end do
    call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ig, n, MPI_INTEGER, MPI_COMM_WORLD)
    calls(5) = calls(5) + 1
    do i = 1, n * np
      call check_i('MPI_Allgather in place', ig(i), i, i)
    end do
    do i = 1, n * np
      ig(i) = rank + i
    end do
    call MPI_Reduce_scatter_block(ig, ir, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    calls(6) = calls(6) + 1
    do i = 1, n
      call check_i('MPI_Reduce_scatter_block', ir(i), np * (np - 1) / 2 + np * (rank * n + i), i)
    end do
    do i = 1, n
      iv(i) = rank + i
    end do
    call MPI_Iallreduce(iv, ir, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req)
    calls(7) = calls(7) + 1
    call MPI_Wait(req, st)
    calls(8) = calls(8) + 1
    do i = 1, n
      call check_i('MPI_Iallreduce', ir(i), np * (np - 1) / 2 + np * i, i)
    end do
    call MPI_Iallreduce(iv, ir, n, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, reqs(1))
    call MPI_Iallreduce(MPI_IN_PLACE, iv, n, MPI_INTEGER, MPI_MIN, MPI_COMM_WORLD, reqs(2))
    calls(7) = calls(7) + 2
    flag = .false.
    do while (.not. flag)
      call MPI_Test(reqs(1), flag, MPI_STATUS_IGNORE)
      calls(9) = calls(9) + 1
    end do
    call MPI_Wait(reqs(2), MPI_STATUS_IGNORE, ierr)
    calls(8) = calls(8) + 1
    do i = 1, n
      call check_i('MPI_Iallreduce max', ir(i), np - 1 + i, i)
      call check_i('MPI_Iallreduce in place min', iv(i), i, i)
    end do
  end do
  call MPI_Allreduce(nfail, allfail, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call MPI_Reduce(calls, total, 9, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD)
  ! the two checks' own calls: every rank, one of each
  total(1) = total(1) + np
  total(2) = total(2) + np
  if (rank == 0) then
    print '(a,i0,a)', 'fcoll08: ', allfail, ' failures (all ranks)'
    print '(a,9(a,i0))', 'fcoll08: calls', ' MPI_Allreduce=', total(1), ' MPI_Reduce=', total(2), &
      ' MPI_Bcast=', total(3), ' MPI_Barrier=', total(4), ' MPI_Allgather=', total(5), &
      ' MPI_Reduce_scatter_block=', total(6), ' MPI_Iallreduce=', total(7), &
      ' MPI_Wait=', total(8), ' MPI_Test=', total(9)
  end if
  call MPI_Finalize()
  if (allfail /= 0) stop 1

contains

  subroutine check_i(what, got, want, idx)
    character(len=*), intent(in) :: what
    integer, intent(in) :: got, want, idx
    if (got /= want) then
      nfail = nfail + 1
      if (nfail <= 10) write (0, '(a,i0,a,a,a,i0,a,i0,a,i0)') 'fcoll08: FAIL rank ', rank, &
        ': ', what, ' element ', idx, ': got ', got, ', expected ', want
    end if
  end subroutine check_i

  subroutine check_d(what, got, want, idx)
    character(len=*), intent(in) :: what
    double precision, intent(in) :: got, want
    integer, intent(in) :: idx
    if (got /= want) then
      nfail = nfail + 1
      if (nfail <= 10) write (0, '(a,i0,a,a,a,i0,a,g0,a,g0)') 'fcoll08: FAIL rank ', rank, &
        ': ', what, ' element ', idx, ': got ', got, ', expected ', want
    end if
  end subroutine check_d
end program fcoll08
