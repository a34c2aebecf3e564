! fcoll.f90 - an MPI program as a Fortran user writes it (`use mpi` only),
! run under bin/paprun by tests/interpose/fortran.sh: allreduce, reduce,
! bcast, barrier, allgather, reduce_scatter_block, iallreduce / ireduce /
! ibcast completed by mpi_wait, mpi_waitall, an mpi_test loop, mpi_waitany,
! mpi_waitsome, mpi_testall, mpi_testany and mpi_testsome, with
! and without MPI_IN_PLACE, in integer and double precision.  Every result
! is checked against its value computed by hand here (the inputs are
! integers and halves, so double sums are exact in any order).  Prints the
! number of calls of each function (all ranks).  Exit status 1 on a wrong
! result.
program fcoll
  use mpi
  implicit none
  integer, parameter :: n = 1000
  integer :: ierr, rank, np, i, root, nfail, allfail, it
  integer :: iv(n), ir(n), ig(n * 4)
  double precision :: dv(n), dr(n), dg(n * 4)
  integer :: req, reqs(2), st(MPI_STATUS_SIZE), sts(MPI_STATUS_SIZE, 2)
  integer :: idx, outc, inds(2), done, mode
  logical :: flag
  integer :: calls(12), total(12)

  call mpi_init(ierr)
  call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
  call mpi_comm_size(MPI_COMM_WORLD, np, ierr)
  if (np > 4) then
    write (0, '(a)') 'fcoll: needs at most 4 ranks'
    call mpi_abort(MPI_COMM_WORLD, 2, ierr)
  end if
  nfail = 0
  calls = 0

  do it = 1, 3
    ! allreduce, integer sum: sum over ranks of (r + i + it)
    do i = 1, n
      iv(i) = rank + i + it
    end do
    call mpi_allreduce(iv, ir, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    calls(1) = calls(1) + 1
    do i = 1, n
      call check_i('mpi_allreduce integer sum', ir(i), np * (np - 1) / 2 + np * (i + it), i)
    end do
    ! allreduce in place, double max: max is rank np-1's
    do i = 1, n
      dr(i) = rank * 0.5d0 + i
    end do
    call mpi_allreduce(MPI_IN_PLACE, dr, n, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
    calls(1) = calls(1) + 1
    do i = 1, n
      call check_d('mpi_allreduce in place double max', dr(i), (np - 1) * 0.5d0 + i, i)
    end do
    ! reduce to every root, double sum, and in place at the root
    do root = 0, np - 1
      do i = 1, n
        dv(i) = rank * 0.5d0 + i
      end do
      call mpi_reduce(dv, dr, n, MPI_DOUBLE_PRECISION, MPI_SUM, root, MPI_COMM_WORLD, ierr)
      calls(2) = calls(2) + 1
      if (rank == root) then
        do i = 1, n
          call check_d('mpi_reduce double sum', dr(i), 0.5d0 * np * (np - 1) / 2 + np * i, i)
        end do
        dr = dv
        call mpi_reduce(MPI_IN_PLACE, dr, n, MPI_DOUBLE_PRECISION, MPI_SUM, root, &
                        MPI_COMM_WORLD, ierr)
        do i = 1, n
          call check_d('mpi_reduce in place double sum', dr(i), 0.5d0 * np * (np - 1) / 2 + np * i, i)
        end do
      else
        call mpi_reduce(dv, dr, n, MPI_DOUBLE_PRECISION, MPI_SUM, root, MPI_COMM_WORLD, ierr)
      end if
      calls(2) = calls(2) + 1
      ! bcast from every root
      do i = 1, n
        iv(i) = -1
        if (rank == root) iv(i) = root * 1000 + i
      end do
      call mpi_bcast(iv, n, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
      calls(3) = calls(3) + 1
      do i = 1, n
        call check_i('mpi_bcast', iv(i), root * 1000 + i, i)
      end do
    end do
    call mpi_barrier(MPI_COMM_WORLD, ierr)
    calls(4) = calls(4) + 1
    ! allgather, without and with MPI_IN_PLACE
    do i = 1, n
      iv(i) = rank * n + i
    end do
    call mpi_allgather(iv, n, MPI_INTEGER, ig, n, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    calls(5) = calls(5) + 1
    do i = 1, n * np
      call check_i('mpi_allgather', ig(i), i, i)
    end do
    do i = 1, n * np
      dg(i) = -1
    end do
    do i = 1, n
      dg(rank * n + i) = rank * n + i + 0.5d0
    end do
    call mpi_allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, dg, n, MPI_DOUBLE_PRECISION, &
                       MPI_COMM_WORLD, ierr)
    calls(5) = calls(5) + 1
    do i = 1, n * np
      call check_d('mpi_allgather in place', dg(i), i + 0.5d0, i)
    end do
    ! reduce_scatter_block, integer sum: block r of rank q's input is q + j
    do i = 1, n * np
      ig(i) = rank + i
    end do
    call mpi_reduce_scatter_block(ig, ir, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    calls(6) = calls(6) + 1
    do i = 1, n
      call check_i('mpi_reduce_scatter_block', ir(i), np * (np - 1) / 2 + np * (rank * n + i), i)
    end do
    call mpi_reduce_scatter_block(MPI_IN_PLACE, ig, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    calls(6) = calls(6) + 1
    do i = 1, n
      call check_i('mpi_reduce_scatter_block in place', ig(i), &
                   np * (np - 1) / 2 + np * (rank * n + i), i)
    end do
    ! iallreduce + mpi_wait (with a status)
    do i = 1, n
      iv(i) = rank + i
    end do
    call mpi_iallreduce(iv, ir, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req, ierr)
    calls(7) = calls(7) + 1
    call mpi_wait(req, st, ierr)
    calls(10) = calls(10) + 1
    if (req /= MPI_REQUEST_NULL) call fail_msg('mpi_wait left the request set')
    do i = 1, n
      call check_i('mpi_iallreduce', ir(i), np * (np - 1) / 2 + np * i, i)
    end do
    ! ireduce and ibcast + mpi_waitall (statuses ignored)
    do i = 1, n
      dv(i) = rank + i * 0.5d0
      dg(i) = -1
      if (rank == 0) dg(i) = i * 2.5d0
    end do
    call mpi_ireduce(dv, dr, n, MPI_DOUBLE_PRECISION, MPI_MIN, np - 1, MPI_COMM_WORLD, &
                     reqs(1), ierr)
    call mpi_ibcast(dg, n, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, reqs(2), ierr)
    calls(8) = calls(8) + 1
    calls(9) = calls(9) + 1
    call mpi_waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
    calls(11) = calls(11) + 1
    do i = 1, n
      if (rank == np - 1) call check_d('mpi_ireduce min', dr(i), i * 0.5d0, i)
      call check_d('mpi_ibcast', dg(i), i * 2.5d0, i)
    end do
    ! iallreduce in place + an mpi_test loop (status ignored)
    do i = 1, n
      dr(i) = rank + 0.5d0
    end do
    call mpi_iallreduce(MPI_IN_PLACE, dr, n, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, &
                        req, ierr)
    calls(7) = calls(7) + 1
    flag = .false.
    do while (.not. flag)
      call mpi_test(req, flag, MPI_STATUS_IGNORE, ierr)
      calls(12) = calls(12) + 1
    end do
    do i = 1, n
      call check_d('mpi_iallreduce in place', dr(i), np * (np - 1) / 2 + 0.5d0 * np, i)
    end do
    ! two nonblocking collectives completed by mpi_waitany, mpi_waitsome,
    ! mpi_testall, mpi_testany, mpi_testsome (indices are 1-based)
    do mode = 1, 5
      do i = 1, n
        iv(i) = rank + i + mode
        dg(i) = -1
        if (rank == mod(mode, np)) dg(i) = i + 0.5d0 * mode
      end do
      call mpi_iallreduce(iv, ir, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, reqs(1), ierr)
      call mpi_ibcast(dg, n, MPI_DOUBLE_PRECISION, mod(mode, np), MPI_COMM_WORLD, reqs(2), ierr)
      calls(7) = calls(7) + 1
      calls(9) = calls(9) + 1
      done = 0
      do while (done < 2)
        select case (mode)
        case (1)
          call mpi_waitany(2, reqs, idx, st, ierr)
          if (idx /= 1 .and. idx /= 2) call fail_msg('mpi_waitany: index not 1 or 2')
          done = done + 1
        case (2)
          call mpi_waitsome(2, reqs, outc, inds, sts, ierr)
          if (outc < 1 .or. outc > 2) call fail_msg('mpi_waitsome: outcount not 1 or 2')
          do i = 1, outc
            if (inds(i) /= 1 .and. inds(i) /= 2) call fail_msg('mpi_waitsome: index not 1 or 2')
          end do
          done = done + outc
        case (3)
          call mpi_testall(2, reqs, flag, MPI_STATUSES_IGNORE, ierr)
          if (flag) done = 2
        case (4)
          call mpi_testany(2, reqs, idx, flag, MPI_STATUS_IGNORE, ierr)
          if (flag .and. idx /= MPI_UNDEFINED) then
            if (idx /= 1 .and. idx /= 2) call fail_msg('mpi_testany: index not 1 or 2')
            done = done + 1
          end if
        case default
          call mpi_testsome(2, reqs, outc, inds, MPI_STATUSES_IGNORE, ierr)
          if (outc /= MPI_UNDEFINED) then
            do i = 1, outc
              if (inds(i) /= 1 .and. inds(i) /= 2) call fail_msg('mpi_testsome: index not 1 or 2')
            end do
            done = done + outc
          end if
        end select
      end do
      if (reqs(1) /= MPI_REQUEST_NULL .or. reqs(2) /= MPI_REQUEST_NULL) &
        call fail_msg('a completion function left a request set')
      do i = 1, n
        call check_i('mpi_iallreduce (any/some/all)', ir(i), np * (np - 1) / 2 + np * (i + mode), i)
        call check_d('mpi_ibcast (any/some/all)', dg(i), i + 0.5d0 * mode, i)
      end do
    end do
  end do

  call pmpi_allreduce(nfail, allfail, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call pmpi_reduce(calls, total, 12, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    print '(a,i0,a)', 'fcoll: ', allfail, ' failures (all ranks)'
    print '(a,12(a,i0))', 'fcoll: calls', ' MPI_Allreduce=', total(1), ' MPI_Reduce=', total(2), &
      ' MPI_Bcast=', total(3), ' MPI_Barrier=', total(4), ' MPI_Allgather=', total(5), &
      ' MPI_Reduce_scatter_block=', total(6), ' MPI_Iallreduce=', total(7), &
      ' MPI_Ireduce=', total(8), ' MPI_Ibcast=', total(9), ' MPI_Wait=', total(10), &
      ' MPI_Waitall=', total(11), ' MPI_Test=', total(12)
  end if
  call mpi_finalize(ierr)
  if (allfail /= 0) stop 1

contains

  subroutine fail_msg(what)
    character(len=*), intent(in) :: what
    nfail = nfail + 1
    if (nfail <= 10) write (0, '(a,i0,a,a)') 'fcoll: FAIL rank ', rank, ': ', what
  end subroutine fail_msg

  subroutine check_i(what, got, want, idx)
    character(len=*), intent(in) :: what
    integer, intent(in) :: got, want, idx
    if (got /= want) then
      nfail = nfail + 1
      if (nfail <= 10) write (0, '(a,i0,a,a,a,i0,a,i0,a,i0)') 'fcoll: FAIL rank ', rank, &
        ': ', what, ' element ', idx, ': got ', got, ', expected ', want
    end if
  end subroutine check_i

  subroutine check_d(what, got, want, idx)
    character(len=*), intent(in) :: what
    double precision, intent(in) :: got, want
    integer, intent(in) :: idx
    if (got /= want) then
      nfail = nfail + 1
      if (nfail <= 10) write (0, '(a,i0,a,a,a,i0,a,g0,a,g0)') 'fcoll: FAIL rank ', rank, &
        ': ', what, ' element ', idx, ': got ', got, ', expected ', want
    end if
  end subroutine check_d
end program fcoll
