#pragma once
// Which MPI-IO implementation writes the outputs, chosen before MPI_Init.
//
// OpenMPI's own layer (OMPIO) opens every file with its shared-file-pointer
// components too, though TRA never uses a shared file pointer, and they make
// files of their own at each open: `<file>.locktest.<rank>` beside the output,
// a named semaphore `/dev/shm/sem.OMPIO_<file>`, and on several nodes
// `<file>.data.<rank>` and `<file>.metadata.<rank>`. A rank killed while
// opening (kill -9, the OOM killer) leaves them behind, where the temporary
// output's guard cannot know their names. ROMIO, the other layer OpenMPI
// ships, makes none, and writes as fast here. A user's own choice
// (OMPI_MCA_io, mpirun --mca io) is kept; other MPIs ignore the variable.
namespace tra::io {

void prefer_mpi_io_without_helper_files();  // before MPI_Init

}  // namespace tra::io
