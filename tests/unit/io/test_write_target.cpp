// Where a result is renamed into place: a regular file or nothing, a link to
// a regular file followed, anything else refused (a rename would replace it).
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "tra/common/error.hpp"
#include "tra/io/write_target.hpp"

namespace fs = std::filesystem;

namespace {

struct Folder {
  fs::path path = fs::temp_directory_path() / ("tra-write-target-" + std::to_string(getpid()));
  Folder() { fs::create_directories(path); }
  ~Folder() { fs::remove_all(path); }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

std::string refusal(const std::string& path) {
  try {
    tra::io::write_target(path, "--report");
  } catch (const tra::UserError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(WriteTarget, RegularFilesAndNewNamesAreTheirOwnTarget) {
  Folder f;
  std::ofstream(f / "old.json") << "x";
  EXPECT_EQ(tra::io::write_target(f / "old.json", "--report"), f / "old.json");
  EXPECT_EQ(tra::io::write_target(f / "new.json", "--report"), f / "new.json");
  EXPECT_EQ(tra::io::write_target(f / "missing/new.json", "--report"), f / "missing/new.json");  // the folder check says so
}

TEST(WriteTarget, ALinkToARegularFileIsFollowed) {
  Folder f;
  fs::create_directories(f.path / "real");
  std::ofstream(f / "real/target.json") << "x";
  fs::create_symlink("real/target.json", f / "link.json");
  EXPECT_EQ(tra::io::write_target(f / "link.json", "--report"), fs::canonical(f / "real/target.json").string());
}

TEST(WriteTarget, SpecialFilesAndLinksToThemAreRefused) {
  Folder f;
  ASSERT_EQ(mkfifo((f / "fifo").c_str(), 0600), 0);
  EXPECT_NE(refusal(f / "fifo").find("--report " + (f / "fifo") + ": is a FIFO (named pipe); results are written under a temporary name"),
            std::string::npos);
  fs::create_symlink(f / "fifo", f / "to-fifo");
  EXPECT_NE(refusal(f / "to-fifo").find("is a symbolic link to a FIFO (named pipe)"), std::string::npos);
  fs::create_symlink("/dev/null", f / "to-null");
  EXPECT_NE(refusal(f / "to-null").find("is a symbolic link to a character device"), std::string::npos);
  EXPECT_NE(refusal("/dev/null").find("is a character device"), std::string::npos);
  fs::create_symlink(f / "nothing", f / "dangling");
  EXPECT_NE(refusal(f / "dangling").find("is a symbolic link to a missing file"), std::string::npos);
  fs::create_symlink("loop", f / "loop");
  EXPECT_NE(refusal(f / "loop").find("Too many levels of symbolic links"), std::string::npos);
  fs::create_directories(f.path / "dir");
  EXPECT_NE(refusal(f / "dir").find("is a folder"), std::string::npos);
}
